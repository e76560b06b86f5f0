import test from 'ava';
import { ByteTimeline } from '../../../actors/speedtest/site/byte-timeline.js';
import { bytesBy, goodputBitsPerSecond, steadyWindow, warmUpMs, type ByteSample } from '../../../actors/speedtest/client/goodput.js';

/** A stream moving `bytesPerSecond` from `from` to `to` (ms), sampled every `everyMs`, then `tail` samples. */
function stream(bytesPerSecond: number, from: number, to: number, everyMs = 10, tail: ByteSample[] = []): ByteSample[] {
  const samples: ByteSample[] = [];
  for (let at = from + everyMs; at <= to; at += everyMs) samples.push({ at, total: Math.round(((at - from) / 1000) * bytesPerSecond) });
  return [...samples, ...tail];
}

test('a stream stalled at the end does not lower the figure (20 Mbit/s, six streams, one in loss recovery)', (t) => {
  // 2.5 MB/s shared by six streams for 4 s; the sixth has 20 kB left then, which land 1 s later.
  // Counted to the last byte, the span grows from 4 s to 5 s: 16 Mbit/s where the link gave 20.
  const share = 2_500_000 / 6;
  const streams = Array.from({ length: 5 }, () => stream(share, 0, 4000));
  streams.push(stream(share, 0, 4000, 10, [{ at: 5000, total: Math.round(share * 4) + 20_000 }]));
  t.is(Math.round(goodputBitsPerSecond(streams, 0, 1000) / 1e3), 20_000);
});

test('streams left crawling after the others end are outside the window', (t) => {
  // Four streams end at 3 s; the two left crawl at a tenth of their share for another 2 s.
  const share = 2_500_000 / 6;
  const streams = Array.from({ length: 4 }, () => stream(share, 0, 3000));
  for (let index = 0; index < 2; index++) {
    const crawl = stream(share / 10, 0, 2000).map((sample) => ({ at: 3000 + sample.at, total: Math.round(share * 3) + sample.total }));
    streams.push([...stream(share, 0, 3000), ...crawl]);
  }
  const window = steadyWindow(streams, 50)!;
  t.is(window.from, 60, 'the warm-up after the first byte');
  t.is(window.to, 3000, 'the moment fewer than three streams are left moving');
  t.is(Math.round(goodputBitsPerSecond(streams, 0, 50) / 1e3), 20_000);
});

test('the warm-up is left out: ten round trips, at most a second, at most half the window', (t) => {
  t.is(warmUpMs(0.8), 8);
  t.is(warmUpMs(40), 400);
  t.is(warmUpMs(250), 1000);
  // 1 MB/s steady, but the first second delivers in one late lump.
  const lumpy = [{ at: 900, total: 1_000_000 }, ...stream(1_000_000, 1000, 5000, 100).map((sample) => ({ at: sample.at, total: sample.total + 1_000_000 }))];
  t.is(Math.round(goodputBitsPerSecond([lumpy], 0, 1000)), 8_000_000);
  const fast = [stream(1e9, 0, 20, 1), stream(1e9, 0, 24, 1)];
  const window = steadyWindow(fast, 1000)!;
  t.deepEqual([window.from, window.to], [10.5, 20], 'from half-way between the first byte and the end of the window');
  t.is(Math.round(goodputBitsPerSecond(fast, 0, 1000) / 1e6), 16_000);
});

test('a transfer without a window is taken whole', (t) => {
  t.is(goodputBitsPerSecond([], 0, 10), 0);
  t.is(goodputBitsPerSecond([[{ at: 20, total: 25_000_000 }]], 0, 10), 25_000_000 * 8 * 50);
});

test('bytes between samples are interpolated', (t) => {
  const samples = [
    { at: 10, total: 100 },
    { at: 20, total: 300 },
  ];
  t.is(bytesBy(samples, 5), 0);
  t.is(bytesBy(samples, 10), 100);
  t.is(bytesBy(samples, 15), 200);
  t.is(bytesBy(samples, 25), 300);
});

test("the server's timeline of an upload is fine, bounded and keeps its last point", (t) => {
  const timeline = new ByteTimeline(1000);
  for (let index = 1; index <= 10; index++) timeline.record(1000 + index * 0.1, index);
  timeline.record(1002, 20);
  t.deepEqual(timeline.toJSON(), [
    [0.0001, 1],
    [0.001, 10],
    [0.002, 20],
  ]);
  const long = new ByteTimeline(0);
  for (let at = 1; at <= 100_000; at++) long.record(at, at * 10);
  const points = long.toJSON();
  t.true(points.length <= 2048 && points.length >= 1024, `${points.length} points`);
  t.deepEqual(points.at(-1), [100, 1_000_000]);
  t.deepEqual(points[0], [0.001, 10]);
});
