// certhub run against the real stack: PowerDNS for the records and the challenges, Pebble as the CA
// validating through that PowerDNS. A domain goes from added to issued, its record is answered, and
// its material, fetched with its token, verifies against Pebble's root.
import test from 'ava';
import { stopCertStack, startCertStack } from '../../helpers/cert-stack.js';
import { startCerthubOnStack } from '../../helpers/certhub-domains.js';
import { eventually } from '../../helpers/fixture-host.js';
import { opensslCheck } from '../../helpers/openssl.js';

interface Domain {
  name: string;
  status: string;
  token: string;
  error: string | null;
}

test('add with an IPv4 target -> A record answered by PowerDNS -> issued by Pebble -> fetched with its token, verified', async (t) => {
  const stack = await startCertStack();
  try {
    const { powerdns, pebble } = stack;
    const server = await startCerthubOnStack(t, stack);
    const added = (await (await server.admin('api/admin/domains', { method: 'POST', body: { name: 'app', target: '203.0.113.5' } })).json()) as Domain;
    t.is(added.name, 'app.example.test');

    let last: Domain | undefined;
    const issued = await eventually(
      async () => {
        last = (await (await server.admin('api/admin/domains/app')).json()) as Domain;
        return last.status === 'issued' || last.status === 'error';
      },
      60_000,
      100,
    );
    t.true(issued, `the domain settles: ${JSON.stringify(last)}`);
    t.is(last?.status, 'issued', last?.error ?? '');
    t.deepEqual(await powerdns.dig('app.example.test', 'A'), ['203.0.113.5']);
    t.deepEqual(await powerdns.dig('_acme-challenge.app.example.test', 'TXT'), [], 'no challenge record is left behind');

    const response = await fetch(`${server.url}api/cert/app`, { headers: { authorization: `Bearer ${added.token}` } });
    t.is(response.status, 200);
    const material = (await response.json()) as { cert_pem: string; chain_pem: string; key_pem: string };
    const verdict = await opensslCheck({ certPem: material.cert_pem, chainPem: material.chain_pem, keyPem: material.key_pem }, await pebble.root());
    t.regex(verdict.verify, /: OK$/);
    t.true(verdict.keyMatches);
    await server.waitFor(/issued app\.example\.test/);
  } finally {
    await stopCertStack(stack);
  }
});
