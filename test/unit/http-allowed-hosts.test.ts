import test from 'ava';
import { hostCheckFor, maxRememberedHosts } from '../../src/http/allowed-hosts.js';
import { isLoopbackOnly } from '../../src/net/address.js';

test('a front bound to loopback checks the Host; one bound elsewhere checks it only with allowed_hosts', (t) => {
  for (const bind of ['127.0.0.1', '127.0.0.53', '::1', 'localhost']) t.true(isLoopbackOnly(bind), bind);
  for (const bind of ['0.0.0.0', '::', '192.0.2.1', '127.example', 'localhost.example']) t.false(isLoopbackOnly(bind), bind);
  t.is(hostCheckFor('0.0.0.0'), undefined);
  t.is(hostCheckFor('192.0.2.1', { allowedHosts: [] }), undefined);

  const wildcard = hostCheckFor('0.0.0.0', { allowedHosts: ['dash.example.test', '2001:db8::1', '192.0.2.1'] });
  if (wildcard === undefined) return t.fail('allowed_hosts must switch the check on off loopback');
  for (const host of ['dash.example.test:8080', 'DASH.example.test', '[2001:db8::1]:80', '192.0.2.1:8080', 'localhost:8080', '127.0.0.1'])
    t.true(wildcard(host), host);
  for (const host of ['other.example.test', '192.0.2.2:8080', 'dash.example.test.evil', '[2001:db8::2]']) t.false(wildcard(host), host);
});

test('a front checking on every bind answers off loopback the names and addresses of its machine, and no other', (t) => {
  const machineNames = () => ['box.lan.example', 'box', '192.0.2.7', 'fd00::7', '127.0.0.1'];
  for (const bind of ['0.0.0.0', '::', '192.0.2.7']) {
    const check = hostCheckFor(bind, { allowedHosts: ['dash.example.test'], everyBind: { machineNames } });
    if (check === undefined) return t.fail(`${bind}: the check must apply on every bind`);
    for (const host of ['box.lan.example:8080', 'BOX', '192.0.2.7:8080', '[fd00::7]:8080', 'localhost:8080', '[::1]', 'dash.example.test'])
      t.true(check(host), `${bind} ${host}`);
    for (const host of ['attacker.example', 'box.attacker.example', '192.0.2.8', '[fd00::8]', 'fd00::7', '']) t.false(check(host), `${bind} ${host}`);
  }
  const onLoopback = hostCheckFor('127.0.0.1', { everyBind: { machineNames } });
  if (onLoopback === undefined) return t.fail('a loopback bind must check the Host');
  t.false(onLoopback('box.lan.example'), 'bound to loopback, only loopback names and allowed_hosts are answered');
});

test('loopback names and addresses pass with or without a port; look-alikes do not', (t) => {
  const check = hostCheckFor('127.0.0.1');
  if (check === undefined) return t.fail('a loopback bind must check the Host');
  for (const host of ['localhost', 'localhost:80', 'LocalHost:8080', 'a.b.localhost:1', '127.0.0.1', '127.255.0.9:65535', '[::1]', '[::1]:8080'])
    t.true(check(host), host);
  for (const host of [
    '',
    'evil.example',
    'localhost.evil.example',
    'evillocalhost',
    '127.0.0.1.nip.io',
    '127.0.0.256',
    '128.0.0.1',
    '[::2]:80',
    '::1',
    '[::ffff:7f00:1]',
  ])
    t.false(check(host), host);
});

test('the Host values a check remembers are bounded and never let another one through', (t) => {
  const check = hostCheckFor('::1', { allowedHosts: ['dash.example.test'] });
  if (check === undefined) return t.fail('a loopback bind must check the Host');
  for (let index = 0; index < maxRememberedHosts; index++) t.true(check(`n${index}.localhost:8080`));
  t.is(check.remembered(), maxRememberedHosts, 'each distinct Host that passed is remembered up to the bound');
  t.true(check(`n${maxRememberedHosts}.localhost:8080`), 'a Host past the bound still passes');
  t.is(check.remembered(), maxRememberedHosts, 'a Host past the bound is not remembered');
  for (let index = maxRememberedHosts + 1; index < 500; index++) t.true(check(`n${index}.localhost:8080`));
  t.is(check.remembered(), maxRememberedHosts, 'after 500 distinct Host values, no more than the bound are remembered');
  for (let round = 0; round < 2; round++) {
    t.true(check('dash.example.test:8080'));
    t.false(check('evil.example:8080'));
    t.false(check('n1.localhost.evil.example'));
  }
});

test('off loopback, the check on every bind applies without allowed_hosts too', (t) => {
  const check = hostCheckFor('0.0.0.0', { everyBind: { machineNames: () => ['box.lan.example'] } });
  if (check === undefined) return t.fail('everyBind alone must switch the check on off loopback');
  t.true(check('box.lan.example:8080'));
  t.false(check('attacker.example'));
});

test('a Host value that passed passes again from what the check remembers', (t) => {
  const check = hostCheckFor('127.0.0.1', { allowedHosts: ['dash.example.test'] });
  if (check === undefined) return t.fail('a loopback bind must check the Host');
  for (const host of ['dash.example.test:8080', 'localhost:8080', '[::1]:8080']) t.deepEqual([check(host), check(host), check(host)], [true, true, true], host);
});
