import test from 'ava';
import { RestartHistory } from '../../src/actor/restart-policy.js';

const options = { maxRestarts: 3, windowMs: 10_000, initialBackoffMs: 100, maxBackoffMs: 300 };

test('backoff doubles per restart in the window and is capped', (t) => {
  const history = new RestartHistory(options);
  t.deepEqual(history.onCrash(0), { action: 'restart', delayMs: 100, restartsInWindow: 1 });
  t.deepEqual(history.onCrash(1000), { action: 'restart', delayMs: 200, restartsInWindow: 2 });
  t.deepEqual(history.onCrash(2000), { action: 'restart', delayMs: 300, restartsInWindow: 3 });
});

test('too many restarts within the window gives up', (t) => {
  const history = new RestartHistory(options);
  for (const at of [0, 1, 2]) t.is(history.onCrash(at).action, 'restart');
  t.deepEqual(history.onCrash(3), { action: 'give-up', restartsInWindow: 3 });
});

test('restarts older than the window are forgotten, and the backoff with them', (t) => {
  const history = new RestartHistory(options);
  for (const at of [0, 1, 2]) history.onCrash(at);
  t.deepEqual(history.onCrash(10_005), { action: 'restart', delayMs: 100, restartsInWindow: 1 });
});
