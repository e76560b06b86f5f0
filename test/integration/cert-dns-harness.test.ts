// The harness itself: the private PowerDNS answers for its zone and the API changes it; Pebble serves
// its directory over HTTPS that verifies against the CA file it reports, and hands out its root.
import { X509Certificate } from 'node:crypto';
import test from 'ava';
import { withCertStack } from '../helpers/cert-stack.js';
import { withPowerDns } from '../helpers/cert-stack.js';

test('PowerDNS answers for the zone it was given, with SOA-EDIT-API set', withPowerDns, async (t, powerdns) => {
  t.deepEqual(await powerdns.dig(powerdns.zone, 'NS'), [`ns1.${powerdns.zone}.`]);
  const [soa] = await powerdns.dig(powerdns.zone, 'SOA');
  t.regex(soa ?? '', new RegExp(`^ns1\\.${powerdns.zone.replace('.', '\\.')}\\. `));
  const response = await fetch(`${powerdns.apiUrl}/api/v1/servers/localhost/zones/${powerdns.zone}.?rrsets=false`, { headers: { 'X-API-Key': powerdns.apiKey } });
  const zone = (await response.json()) as { kind: string; soa_edit_api: string };
  t.is(zone.kind, 'Native');
  t.is(zone.soa_edit_api, 'DEFAULT');
});

test('Pebble serves its directory over verified HTTPS and hands out a CA root', withCertStack, async (t, { pebble }) => {
  const directory = JSON.parse((await pebble.get(pebble.directoryUrl)).body) as Record<string, unknown>;
  t.is(typeof directory.newOrder, 'string');
  const root = new X509Certificate(await pebble.root());
  t.true(root.ca);
  t.regex(root.subject, /Pebble Root CA/);
});
