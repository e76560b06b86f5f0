import test from 'ava';
import { childEnvironment } from '../../src/process/child-environment.js';

const ours = {
  PATH: '/usr/bin:/bin',
  HOME: '/var/lib/outpost',
  LANG: 'C.UTF-8',
  LC_TIME: 'en_GB.UTF-8',
  TZ: 'UTC',
  APP_POOL_KEY: 'pool passphrase',
  CERTHUB_TOKEN: 'a token',
  DOCKER_HOST: 'unix:///run/docker.sock',
  NODE_OPTIONS: '--inspect',
};

test('a child gets PATH, HOME, the locale and TZ of ours, and nothing else unless named', (t) => {
  t.deepEqual(childEnvironment({}, ours), { PATH: '/usr/bin:/bin', HOME: '/var/lib/outpost', LANG: 'C.UTF-8', LC_TIME: 'en_GB.UTF-8', TZ: 'UTC' });
});

test('named variables pass when ours has them; set ones are added', (t) => {
  const environment = childEnvironment({ pass: ['DOCKER_HOST', 'XDG_RUNTIME_DIR'], set: { CERTHUB_AGENT_DOMAINS: 'a.example.test' } }, ours);
  t.is(environment.DOCKER_HOST, 'unix:///run/docker.sock');
  t.false('XDG_RUNTIME_DIR' in environment);
  t.is(environment.CERTHUB_AGENT_DOMAINS, 'a.example.test');
  t.false('APP_POOL_KEY' in environment);
  t.false('CERTHUB_TOKEN' in environment);
});
