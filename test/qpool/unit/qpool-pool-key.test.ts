import test from 'ava';
import { takePoolKey } from '../../../actors/qpool/pool-key.js';

test('the pool key leaves the environment at the first read; later reads answer the same key', (t) => {
  const environment: NodeJS.ProcessEnv = { PATH: '/usr/bin', APP_POOL_KEY: 'the pool passphrase' };
  t.is(takePoolKey(environment), 'the pool passphrase');
  t.deepEqual(environment, { PATH: '/usr/bin' });
  const later: NodeJS.ProcessEnv = { APP_POOL_KEY: 'set again after start' };
  t.is(takePoolKey(later), 'the pool passphrase');
  t.deepEqual(later, {}, 'a key set after start is removed too and never read');
});
