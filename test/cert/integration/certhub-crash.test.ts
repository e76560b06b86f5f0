// `kill -9` of a certhub run on Pebble + PowerDNS while orders are in flight. The window is held open
// deterministically: propagation is checked at PowerDNS and at a relay in front of it (dns-gate.ts)
// that the test shuts, so every new order waits in `issuing`, its challenge TXT written, until the
// process is killed. After the restart, with the relay open, every domain resumes to issued, no token
// changes, the certificate issued before the kill is served as it was, and no challenge TXT is left.
import test from 'ava';
import { startCertStack, stopCertStack } from '../../helpers/cert-stack.js';
import { certhubDataDir, startCerthub } from '../../helpers/certhub.js';
import { addDomain, fetchCertificate, getDomain, powerdnsSection, recordsOf, settled, stackSections, waitForDomain } from '../../helpers/certhub-domains.js';
import { startDnsGate } from '../helpers/dns-gate.js';
import { eventually } from '../../helpers/fixture-host.js';
import { opensslCheck } from '../../helpers/openssl.js';

/** Bounds a hang of one issuance, or of several side by side, on a loaded machine. */
const issueDeadlineMs = 120_000;
const inFlight = ['one', 'two', 'three'];

test('kill -9 while orders wait in issuing -> restart -> every domain issued, tokens and issued material unchanged, no TXT left', async (t) => {
  t.timeout(8 * 60_000);
  const stack = await startCertStack();
  const gate = await startDnsGate(stack.powerdns.dnsPort);
  try {
    const { powerdns, pebble } = stack;
    gate.open();
    // The timeout outlasts the window: the held orders must still be waiting when the kill comes.
    const dataDir = await certhubDataDir(t, { dns: powerdnsSection(powerdns), ...stackSections(stack, [powerdns.nameserver, gate.nameserver], 600) });
    const first = await startCerthub(t, dataDir, []);

    const kept = await addDomain(first, 'kept', '203.0.113.40');
    const keptIssued = await waitForDomain(first, 'kept', settled, issueDeadlineMs);
    t.is(keptIssued.status, 'issued', keptIssued.error ?? '');
    const keptMaterial: unknown = await (await fetchCertificate(first, 'kept', kept.token)).json();

    gate.shut();
    const tokens = new Map<string, string>();
    for (const label of inFlight) tokens.set(label, (await addDomain(first, label, '203.0.113.41')).token);
    // Each order has written its challenge TXT and waits for the shut relay to answer it.
    let seen = '';
    const held = await eventually(
      async () => {
        const states = await Promise.all(
          inFlight.map(async (label) => ({
            label,
            status: (await getDomain(first, label)).status,
            records: await recordsOf(powerdns, `${label}.example.test`),
          })),
        );
        seen = JSON.stringify(states);
        return states.every(({ status, records }) => status === 'issuing' && records.some((rrset) => rrset.type === 'TXT'));
      },
      issueDeadlineMs,
      200,
    );
    t.true(held, `every order waits in issuing with its TXT written: ${seen}`);

    first.child.kill('SIGKILL');
    t.is(await first.exited, 'SIGKILL');
    gate.open();

    const second = await startCerthub(t, dataDir, []);
    for (const label of inFlight) {
      const domain = await waitForDomain(second, label, settled, issueDeadlineMs);
      t.is(domain.status, 'issued', `${label}: ${domain.error ?? ''}`);
      t.is(tokens.get(label), domain.token, `${label} keeps its token`);
      const response = await fetchCertificate(second, label, domain.token);
      t.is(response.status, 200);
      const material = (await response.json()) as { cert_pem: string; chain_pem: string; key_pem: string };
      const verdict = await opensslCheck({ certPem: material.cert_pem, chainPem: material.chain_pem, keyPem: material.key_pem }, await pebble.root());
      t.regex(verdict.verify, /: OK$/, label);
      t.true(verdict.keyMatches, label);
    }
    const keptAfter = await fetchCertificate(second, 'kept', kept.token);
    t.is(keptAfter.status, 200);
    t.deepEqual(await keptAfter.json(), keptMaterial, 'the certificate issued before the kill is served as it was');

    for (const label of ['kept', ...inFlight]) {
      const name = `${label}.example.test`;
      let left = '';
      const clean = await eventually(
        async () => {
          const records = await recordsOf(powerdns, name);
          left = JSON.stringify(records);
          return records.length === 1 && records[0]?.type === 'A';
        },
        30_000,
        200,
      );
      t.true(clean, `${name}: only its A record is left, no challenge TXT: ${left}`);
    }
    // The killed orders' records were removed by the restarted process, from its journal of challenge records.
    for (const label of inFlight)
      t.regex(
        second.stderr(),
        new RegExp(`removed the challenge TXT _acme-challenge\\.${label}\\.example\\.test left by an order the last run did not finish`),
      );
  } finally {
    await gate.close();
    await stopCertStack(stack);
  }
});
