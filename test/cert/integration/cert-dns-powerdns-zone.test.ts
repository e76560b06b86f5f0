// The PowerDNS provider and what the zone holds besides certhub's own records: a
// disabled TXT record stays disabled, a Producer zone's secondaries are sent a NOTIFY, and a primary
// zone without soa_edit_api is reported before it makes propagation time out.
import { createSocket } from 'node:dgram';
import { decode } from 'dns-packet';
import test from 'ava';
import { createDnsProvider } from '../../../actors/cert/dns/providers/create.js';
import { withPowerDns } from '../../helpers/cert-stack.js';
import type { PowerDnsServer } from '../../../benchmarks/third-party/powerdns.js';

function providerFor(powerdns: PowerDnsServer, zone = powerdns.zone) {
  return createDnsProvider({ provider: 'powerdns', server_url: powerdns.apiUrl, api_token: powerdns.apiKey, zone });
}

async function api(powerdns: PowerDnsServer, method: string, path: string, body?: object): Promise<Response> {
  return fetch(`${powerdns.apiUrl}/api/v1/servers/localhost/zones/${path}`, {
    method,
    headers: { 'X-API-Key': powerdns.apiKey, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

async function txtRecords(powerdns: PowerDnsServer, name: string): Promise<{ content: string; disabled: boolean }[]> {
  const zone = (await (await api(powerdns, 'GET', `${powerdns.zone}.`)).json()) as {
    rrsets: { name: string; type: string; records: { content: string; disabled: boolean }[] }[];
  };
  return zone.rrsets.find((rrset) => rrset.name === `${name}.` && rrset.type === 'TXT')?.records.sort((a, b) => a.content.localeCompare(b.content)) ?? [];
}

test('a disabled TXT record at the challenge name stays disabled through an add and a remove', withPowerDns, async (t, powerdns) => {
  const name = `_acme-challenge.app.${powerdns.zone}`;
  const patched = await api(powerdns, 'PATCH', `${powerdns.zone}.`, {
    rrsets: [{ name: `${name}.`, type: 'TXT', ttl: 60, changetype: 'REPLACE', records: [{ content: '"turned-off"', disabled: true }] }],
  });
  t.is(patched.status, 204);
  const provider = providerFor(powerdns);
  await provider.addTxt(name, 'token-value');
  t.deepEqual(await txtRecords(powerdns, name), [
    { content: '"token-value"', disabled: false },
    { content: '"turned-off"', disabled: true },
  ]);
  t.deepEqual(await powerdns.dig(name, 'TXT'), ['"token-value"'], 'only the challenge is served');
  await provider.removeTxt(name, 'token-value');
  t.deepEqual(await txtRecords(powerdns, name), [{ content: '"turned-off"', disabled: true }]);
});

test(
  'a change in a Producer zone is followed by a NOTIFY to its secondaries',
  withPowerDns,
  async (t, powerdns) => {
    const zone = 'catalog-primary.test';
    await powerdns.createZone(zone, 'Producer');
    const secondary = createSocket('udp4');
    await new Promise<void>((resolve) => secondary.bind(0, '127.0.0.1', resolve));
    try {
      const notified = new Promise<string>((resolve) => {
        secondary.on('message', (bytes) => {
          const message = decode(bytes) as ReturnType<typeof decode> & { opcode?: string };
          if (message.opcode === 'NOTIFY') resolve(message.questions?.[0]?.name ?? '');
        });
      });
      const metadata = await api(powerdns, 'POST', `${zone}./metadata`, { kind: 'ALSO-NOTIFY', metadata: [`127.0.0.1:${secondary.address().port}`] });
      t.is(metadata.status, 201, await metadata.text());
      await providerFor(powerdns, zone).setAddress(`app.${zone}`, '203.0.113.7');
      // The bound only turns a NOTIFY that never comes into a failure instead of a hang.
      const silence = new Promise<string>((resolve) => setTimeout(() => resolve('no NOTIFY within 20 s'), 20_000).unref());
      t.is(await Promise.race([notified, silence]), zone);
    } finally {
      secondary.close();
    }
  },
  { primary: true },
);

test('a primary zone without soa_edit_api is reported; one with it, or a Native zone, is not', withPowerDns, async (t, powerdns) => {
  await powerdns.createZone('no-soa-edit.test', 'Master', '');
  await powerdns.createZone('native-no-soa-edit.test', 'Native', '');
  t.deepEqual(await providerFor(powerdns, 'no-soa-edit.test').warnings?.(), [
    'powerdns: zone no-soa-edit.test. is a Master zone without soa_edit_api: its serial does not change on API edits, so its secondaries never see a challenge record and propagation will time out; set it (pdnsutil set-meta no-soa-edit.test SOA-EDIT-API DEFAULT)',
  ]);
  t.deepEqual(await providerFor(powerdns, 'native-no-soa-edit.test').warnings?.(), []);
  t.deepEqual(await providerFor(powerdns).warnings?.(), []);
});
