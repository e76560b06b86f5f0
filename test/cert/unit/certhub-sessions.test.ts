// Admin sessions of the certhub front: what a session keeps open ends with it, on logout or expiry.
import test from 'ava';
import { Sessions } from '../../../actors/cert/site/sessions.js';

test('a session ends on logout and on expiry, telling what it kept open; a forgotten listener is not told', (t) => {
  let now = 0;
  const sessions = new Sessions(1000, () => now);
  const loggedOut = sessions.open();
  const expiring = sessions.open();
  const ended: string[] = [];
  sessions.onEnd(loggedOut, () => ended.push('logged out'));
  sessions.onEnd(expiring, () => ended.push('expired'));
  const forget = sessions.onEnd(expiring, () => ended.push('forgotten'));
  forget();

  sessions.close(loggedOut);
  t.deepEqual(ended, ['logged out']);
  t.false(sessions.check(loggedOut));

  now = 999;
  sessions.prune();
  t.deepEqual(ended, ['logged out'], 'not yet expired');
  now = 1000;
  sessions.prune();
  t.deepEqual(ended, ['logged out', 'expired']);
  t.false(sessions.check(expiring));
  sessions.close(expiring);
  t.deepEqual(ended, ['logged out', 'expired'], 'told once');
});

test('a session in use is extended and keeps its listeners', (t) => {
  let now = 0;
  const sessions = new Sessions(1000, () => now);
  const id = sessions.open();
  let ended = false;
  sessions.onEnd(id, () => (ended = true));
  now = 900;
  t.true(sessions.check(id));
  now = 1500;
  sessions.prune();
  t.false(ended, 'used at 900: lives until 1900');
  now = 1900;
  sessions.prune();
  t.true(ended);
});

test('a session kept busy still ends at its absolute lifetime', (t) => {
  let now = 0;
  const sessions = new Sessions(1000, () => now, 5000);
  const id = sessions.open();
  for (now = 500; now < 5000; now += 500) t.true(sessions.check(id), `in use at ${now} ms`);
  t.false(sessions.check(id), 'over at 5000 ms, though used every 500 ms');
  t.is(sessions.lifetimeSeconds, 5);
});

test('closeAll ends every session and closes what each kept open', (t) => {
  const sessions = new Sessions(60_000);
  const ids = [sessions.open(), sessions.open(), sessions.open()];
  const ended: string[] = [];
  for (const id of ids) sessions.onEnd(id, () => ended.push(id));
  sessions.closeAll();
  t.deepEqual(ended, ids);
  for (const id of ids) t.false(sessions.check(id));
});
