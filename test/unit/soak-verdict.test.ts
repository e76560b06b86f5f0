// The soak's verdict on synthetic series sampled every 10 s as `npm run soak` samples: noise and GC
// sawtooth pass, a steady leak fails, with or without a sawtooth over it.
import test from 'ava';
import { judgeAll, passed } from '../../benchmarks/soak/report.js';
import { fitLine, judgeGrowth, type Sample } from '../../benchmarks/soak/trend.js';

const mebibyte = 1024 * 1024;
const memory = { minRise: 2 * mebibyte };
const counts = { minRise: 3 };

/** A deterministic uniform noise in [-1, 1] (a linear congruential generator), so a failure replays. */
function noise(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) % 2 ** 32;
    return (state / 2 ** 32) * 2 - 1;
  };
}

/** `count` samples 10 s apart of `value(seconds)`. */
function series(count: number, value: (seconds: number) => number): Sample[] {
  return Array.from({ length: count }, (_, index) => ({ seconds: index * 10, value: value(index * 10) }));
}

test('the fitted line of an exact line is that line, with no noise', (t) => {
  const fit = fitLine(series(10, (seconds) => 5 + 2 * seconds));
  t.is(fit.slope, 2);
  t.is(fit.intercept, 5);
  t.is(fit.noise, 0);
  t.is(fit.standardError, 0);
});

test('a flat series with noise passes, whatever the noise draws', (t) => {
  for (let seed = 1; seed <= 50; seed++) {
    const jitter = noise(seed);
    const trend = judgeGrowth(
      series(60, () => 40 * mebibyte + 3 * mebibyte * jitter()),
      memory,
    );
    t.false(trend.grows, `seed ${seed}: ${trend.reason}, significance ${trend.significance}`);
  }
});

test('a steady leak fails: 40 KiB a second under 3 MiB of noise', (t) => {
  for (let seed = 1; seed <= 50; seed++) {
    const jitter = noise(seed);
    const trend = judgeGrowth(
      series(60, (seconds) => 40 * mebibyte + 40 * 1024 * seconds + 3 * mebibyte * jitter()),
      memory,
    );
    t.true(trend.grows, `seed ${seed}: ${trend.reason}, significance ${trend.significance}`);
    t.is(trend.reason, 'grows steadily');
    t.true(Math.abs(trend.slopePerHour - 40 * 1024 * 3600) < 0.3 * 40 * 1024 * 3600, `slope ${trend.slopePerHour}/h`);
  }
});

test('a GC sawtooth passes at every phase: the heap climbs 20 MiB and falls back, every 30 to 120 s', (t) => {
  for (const period of [30, 40, 60, 90, 120]) {
    for (let phase = 0; phase < period; phase += 5) {
      const trend = judgeGrowth(
        series(60, (seconds) => 30 * mebibyte + (((seconds + phase) % period) / period) * 20 * mebibyte),
        memory,
      );
      t.false(trend.grows, `period ${period} s, phase ${phase} s: ${trend.reason}, significance ${trend.significance}`);
    }
  }
});

test('a leak under a GC sawtooth fails once its rise stands above the sawtooth', (t) => {
  const trend = judgeGrowth(
    series(60, (seconds) => 30 * mebibyte + ((seconds % 60) / 60) * 20 * mebibyte + 100 * 1024 * seconds),
    memory,
  );
  t.true(trend.grows, trend.reason);
});

test('the warm-up half is not judged: a pool filling then flat passes', (t) => {
  const trend = judgeGrowth(
    series(60, (seconds) => 50 * mebibyte * Math.min(1, seconds / 250)),
    memory,
  );
  t.false(trend.grows, trend.reason);
});

test('one more file descriptor that stays is not a leak; one more every minute is', (t) => {
  const step = judgeGrowth(
    series(60, (seconds) => (seconds < 450 ? 30 : 31)),
    counts,
  );
  t.false(step.grows);
  t.is(step.reason, 'rise below the minimum');
  const staircase = judgeGrowth(
    series(60, (seconds) => 30 + Math.floor(seconds / 60)),
    counts,
  );
  t.true(staircase.grows, staircase.reason);
});

test('a creep that would not double the series in a day passes: 3 MiB an hour on 100 MiB over a 2-hour soak', (t) => {
  const trend = judgeGrowth(
    series(720, (seconds) => 100 * mebibyte + (3 * mebibyte * seconds) / 3600),
    memory,
  );
  t.false(trend.grows);
  t.is(trend.reason, 'would not double in a day');
});

test('too few samples to fit is an error, not a verdict', (t) => {
  t.throws(
    () =>
      judgeGrowth(
        series(11, () => 1),
        counts,
      ),
    { message: /at least 12 samples, got 11/ },
  );
});

test('a thread that ended early is not judged and does not fail the run; one still running with too few samples does', (t) => {
  const run = series(61, () => 100 * mebibyte);
  // A pool's idle worker sampled once at the start, then gone.
  const ended = judgeAll([
    { name: 'process RSS', kind: 'memory', samples: run },
    { name: 'piscina (thread 2) heap after full GC', kind: 'memory', samples: run.slice(0, 1) },
  ]);
  t.deepEqual(
    ended.map(({ ended: gone }) => gone),
    [false, true],
  );
  t.true(passed(ended));
  // A thread that started late (an actor restarted near the end) still runs: too few samples to judge it fails the run.
  const late = judgeAll([
    { name: 'process RSS', kind: 'memory', samples: run },
    { name: 'pool (thread 9) heap after full GC', kind: 'memory', samples: run.slice(-3) },
  ]);
  t.deepEqual(
    late.map(({ ended: gone }) => gone),
    [false, false],
  );
  t.false(passed(late));
});
