// The grades for streaming, gaming and calls: each limit of docs/netspeed.md ("Grades") at its edge.
import test from 'ava';
import { gradedLatencyMs, gradeLimits, gradeUse, gradeUses, lossPercent, uses } from '../../../actors/speedtest/site/grades.js';

const clean = { loadedLatencyMs: 10, jitterMs: 1, lossPercent: 0 };

test('a quiet fast link is good for everything', (t) => {
  t.deepEqual(gradeUses(clean), { streaming: 'good', gaming: 'good', calls: 'good' });
});

for (const use of uses) {
  for (const figure of ['loadedLatencyMs', 'jitterMs', 'lossPercent'] as const) {
    test(`${use}: ${figure} at each limit keeps the grade, just past it loses it`, (t) => {
      const { good, fair } = gradeLimits[use];
      t.is(gradeUse(use, { ...clean, [figure]: good[figure] }), 'good');
      t.is(gradeUse(use, { ...clean, [figure]: good[figure] + 0.01 }), 'fair');
      t.is(gradeUse(use, { ...clean, [figure]: fair[figure] }), 'fair');
      t.is(gradeUse(use, { ...clean, [figure]: fair[figure] + 0.01 }), 'poor');
    });
  }
}

test('calls follow G.114: 150 ms one way is a 300 ms round trip', (t) => {
  t.is(gradeLimits.calls.good.loadedLatencyMs, 300);
  t.is(gradeLimits.calls.fair.loadedLatencyMs, 800);
});

test('the latency graded is the worse loaded median; no answer under load is the worst', (t) => {
  t.is(gradedLatencyMs(12, [40, 95]), 95);
  t.is(gradedLatencyMs(12, [null, 30]), Number.POSITIVE_INFINITY);
  t.is(gradedLatencyMs(12, []), 12);
  t.deepEqual(gradeUses({ ...clean, loadedLatencyMs: gradedLatencyMs(12, [null, 30]) }), { streaming: 'poor', gaming: 'poor', calls: 'poor' });
});

test('loss is in percent of the pings sent, to one decimal', (t) => {
  t.is(lossPercent(10, 1), 10);
  t.is(lossPercent(3, 1), 33.3);
  t.is(lossPercent(0, 0), 0);
});
