import test from 'ava';
import { dnsProviderSchema } from '../../actors/cert/config.js';
import { servingKind } from '../../actors/cert/tls.js';
import { isRemotePlainHttp } from '../../actors/proxy/client/fetch-targets.js';
import { isLoopbackOnly } from '../../src/net/address.js';

test('loopback is localhost and the address literals of 127.0.0.0/8 and ::1, IPv4-mapped included', (t) => {
  for (const host of ['localhost', 'LocalHost', '127.0.0.1', '127.0.0.53', '127.255.255.254', '::1', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1', '::ffff:7f00:1']) {
    t.true(isLoopbackOnly(host), host);
  }
});

test('a name that starts like a loopback address is not loopback: its owner points it anywhere', (t) => {
  for (const host of [
    '127.attacker.example',
    '127.0.0.1.nip.io',
    '127.0.0.1.',
    '127.1',
    'localhost.example',
    'x.localhost',
    '::1.example',
    '::ffff:127.attacker.example',
  ]) {
    t.false(isLoopbackOnly(host), host);
  }
});

test('other addresses are not loopback', (t) => {
  for (const host of ['0.0.0.0', '::', '::2', '10.0.0.1', '128.0.0.1', '::ffff:10.0.0.1', '192.0.2.1', '']) t.false(isLoopbackOnly(host), host);
});

/** What each caller of isLoopbackOnly makes of a plain http:// server at `url`. */
function plainHttpTo(url: string) {
  const { hostname } = new URL(url);
  const powerdns = dnsProviderSchema.safeParse({ provider: 'powerdns', server_url: url, api_token: 'powerdns-api-key', zone: 'example.test' });
  return {
    proxyFetch: isRemotePlainHttp(new URL(url)),
    powerdnsRefused: !powerdns.success,
    certhubServing: servingKind({ tls: undefined, insecure_http: false, base_domain: 'example.test' }, hostname.replace(/^\[|\]$/g, '')),
  };
}

test('the proxy, the PowerDNS provider and certhub serving treat a 127.-prefixed name as another machine', (t) => {
  const callers = plainHttpTo('http://127.attacker.example:8080/');
  t.deepEqual(callers, { proxyFetch: true, powerdnsRefused: true, certhubServing: 'self-signed' });
  t.deepEqual(plainHttpTo('http://127.0.0.1:8080/'), { proxyFetch: false, powerdnsRefused: false, certhubServing: 'loopback-http' });
  t.deepEqual(plainHttpTo('http://[::1]:8080/'), { proxyFetch: false, powerdnsRefused: false, certhubServing: 'loopback-http' });
  t.deepEqual(plainHttpTo('http://localhost:8080/'), { proxyFetch: false, powerdnsRefused: false, certhubServing: 'loopback-http' });
});
