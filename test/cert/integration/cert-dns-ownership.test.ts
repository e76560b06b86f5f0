// certhub replaces and deletes only the address records it created. A record someone
// else made at the name is refused (409 naming it) until the admin adopts it, and outlives certhub's
// own records: against real PowerDNS and the Cloudflare double (which writes into a real PowerDNS).
import test from 'ava';
import { OutpostError } from '../../../src/errors.js';
import { providersUnderTest, withProvider, type ProviderFixture } from '../helpers/dns-provider.js';

/** An address record made by someone else, through the provider's own API as a person or a script would. */
async function makeForeign({ powerdns, cloudflare }: ProviderFixture, name: string, type: 'A' | 'AAAA' | 'CNAME', content: string): Promise<void> {
  if (cloudflare !== undefined) {
    const response = await fetch(`${cloudflare.apiUrl}/zones/${cloudflare.zoneId}/dns_records`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${cloudflare.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ type, name, content, ttl: 120, comment: 'the web team' }),
    });
    if (!response.ok) throw new Error(`the double refused the record: ${await response.text()}`);
    return;
  }
  const response = await fetch(`${powerdns.apiUrl}/api/v1/servers/localhost/zones/${powerdns.zone}.`, {
    method: 'PATCH',
    headers: { 'X-API-Key': powerdns.apiKey, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      rrsets: [{ name: `${name}.`, type, ttl: 60, changetype: 'REPLACE', records: [{ content: type === 'CNAME' ? `${content}.` : content, disabled: false }] }],
    }),
  });
  if (response.status !== 204) throw new Error(`PowerDNS refused the record: ${await response.text()}`);
}

for (const kind of providersUnderTest) {
  test('a name with an address record certhub did not create is refused, named, and left alone', withProvider, kind, async (t, fixture) => {
    const { provider, powerdns } = fixture;
    const name = `www.${powerdns.zone}`;
    await makeForeign(fixture, name, 'A', '198.51.100.7');
    const refused = await t.throwsAsync(provider.claimAddress(name, false));
    t.true(refused instanceof OutpostError && refused.code === 'ERR_CONFLICT');
    t.regex(refused.message, /198\.51\.100\.7/);
    t.regex(refused.message, /adopt/);
    // Even asked directly (a domain whose record was made by hand later), nothing is replaced or deleted.
    await t.throwsAsync(provider.setAddress(name, '203.0.113.5'), { message: /did not create/ });
    await provider.removeAddress(name);
    t.deepEqual(await powerdns.dig(name, 'A'), ['198.51.100.7']);
  });

  test("removing a domain deletes certhub's record and keeps the one someone added beside it", withProvider, kind, async (t, fixture) => {
    const { provider, powerdns } = fixture;
    const name = `app.${powerdns.zone}`;
    await provider.claimAddress(name, false);
    await provider.setAddress(name, '203.0.113.5');
    await makeForeign(fixture, name, 'AAAA', '2001:db8::7');
    await provider.removeAddress(name);
    t.deepEqual(await powerdns.dig(name, 'A'), []);
    t.deepEqual(await powerdns.dig(name, 'AAAA'), ['2001:db8::7']);
  });

  test("adopted records are certhub's: replaced by its target, deleted with the domain", withProvider, kind, async (t, fixture) => {
    const { provider, powerdns } = fixture;
    const name = `legacy.${powerdns.zone}`;
    await makeForeign(fixture, name, 'CNAME', 'old.example.org');
    await provider.claimAddress(name, true);
    await provider.claimAddress(name, false);
    await provider.setAddress(name, '203.0.113.5');
    t.deepEqual(await powerdns.dig(name, 'CNAME'), []);
    t.deepEqual(await powerdns.dig(name, 'A'), ['203.0.113.5']);
    await provider.removeAddress(name);
    t.deepEqual(await powerdns.dig(name, 'A'), []);
  });
}
