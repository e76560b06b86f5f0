// Actors killed, not the process, for certhub's ACME and DNS actors: on Pebble +
// PowerDNS, `cert/acme` and `cert/dns` are terminated together at random instants (OUTPOST_TEST_KILL_ACTOR
// with both names, SIGUSR2) while domains are being issued. Each is restarted within its policy; every
// domain ends issued with the token it was added with and a certificate that matches its key, and the
// admin event stream never showed it failed (an order cut by a kill is no failure of the domain); no
// challenge TXT record is left in the zone; certificate fetches of a domain issued before the kills
// never fail while they happen.
import test from 'ava';
import type { DomainSummary } from '../../../actors/cert/domains/protocol.js';
import { startCertStack, stopCertStack } from '../../helpers/cert-stack.js';
import { certhubDataDir, startCerthub, testAdminKey, type RunningCerthub } from '../../helpers/certhub.js';
import { addDomain, fetchCertificate, powerdnsSection, recordsOf, settled, stackSections, waitForDomain } from '../../helpers/certhub-domains.js';
import { opensslCheck } from '../../helpers/openssl.js';
import { eventually } from '../../helpers/fixture-host.js';
import { pollText } from '../../helpers/outpost.js';

const killed = ['cert/acme', 'cert/dns'];
const rounds = 3;
/** Bounds a hang of the issuance of every domain on a loaded machine; not a timing assertion. */
const issueDeadlineMs = 240_000;
/** A failed order is tried again after this: short, so that the test waits on orders, not on backoff. */
const retryBackoffSeconds = 3;

/** The domain summaries the admin event stream sends (`domain` events), in order, while it is open. */
async function watchDomainEvents(server: RunningCerthub, signal: AbortSignal): Promise<{ summaries: DomainSummary[]; reading: Promise<void> }> {
  const response = await fetch(`${server.url}api/admin/events`, { headers: { authorization: `Bearer ${testAdminKey}` }, signal });
  const summaries: DomainSummary[] = [];
  const reading = (async () => {
    const decoder = new TextDecoder();
    let received = '';
    try {
      for await (const chunk of response.body!) {
        received += decoder.decode(chunk as Uint8Array, { stream: true });
        const events = received.split('\n\n');
        received = events.pop() ?? '';
        for (const event of events) {
          const match = /^event: domain\ndata: (.*)$/.exec(event);
          if (match !== null) summaries.push(JSON.parse(match[1]!) as DomainSummary);
        }
      }
    } catch {
      // Aborted at the end of the test.
    }
  })();
  return { summaries, reading };
}

test('cert/acme and cert/dns killed at random instants while domains are issued: restarted, every domain issued with its token, no TXT left, fetches never fail', async (t) => {
  t.timeout(8 * 60_000);
  const stack = await startCertStack();
  t.teardown(() => stopCertStack(stack));
  const sections = stackSections(stack, [stack.powerdns.nameserver], 60);
  const dataDir = await certhubDataDir(t, {
    dns: powerdnsSection(stack.powerdns),
    ...sections,
    acme: { ...sections.acme, retry_backoff_seconds: retryBackoffSeconds },
  });
  const server = await startCerthub(t, dataDir, [], { OUTPOST_TEST_KILL_ACTOR: killed.join(',') });
  // Every change of every domain, as the admin panel sees it: a failure shows as an error there.
  const events = new AbortController();
  t.teardown(() => events.abort());
  const { summaries, reading } = await watchDomainEvents(server, events.signal);

  const first = await addDomain(server, 'before', '203.0.113.50');
  t.is((await waitForDomain(server, 'before', settled, issueDeadlineMs)).status, 'issued');
  const fetches: string[] = [];
  let stopFetches = false;
  const fetching = (async () => {
    while (!stopFetches) {
      fetches.push(
        await fetchCertificate(server, 'before', first.token).then(
          (response) => String(response.status),
          (error: unknown) => String(error),
        ),
      );
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  t.teardown(() => {
    stopFetches = true;
  });

  const labels = ['k1', 'k2', 'k3', 'k4', 'k5', 'k6'];
  const tokens = new Map<string, string>();
  for (let round = 1; round <= rounds; round++) {
    // Every actor of the role ready (/readyz) before the signal, so that it terminates both.
    await pollText(`${server.url}readyz`, (_text, status) => status === 200, 60_000);
    // Two more domains each round, then a kill at a random instant of their orders.
    for (const label of labels.slice((round - 1) * 2, round * 2)) tokens.set(label, (await addDomain(server, label, '203.0.113.51')).token);
    await new Promise((resolve) => setTimeout(resolve, 100 + Math.random() * 1500));
    process.kill(server.child.pid ?? 0, 'SIGUSR2');
    for (const name of killed) await server.waitFor(new RegExp(`(restarting actor ${name}[^]*){${round}}`), 20_000);
  }

  for (const label of labels) {
    // An order cut by a kill is no failure of the domain: it starts again, and never shows as `error`.
    const domain = await waitForDomain(server, label, settled, issueDeadlineMs);
    t.is(domain.status, 'issued', `${label}: ${domain.error ?? ''}`);
    t.is(domain.token, tokens.get(label) ?? `no token for ${label}`, `${label} keeps its token`);
    const response = await fetchCertificate(server, label, domain.token);
    t.is(response.status, 200, label);
    const material = (await response.json()) as { cert_pem: string; chain_pem: string; key_pem: string };
    const verdict = await opensslCheck({ certPem: material.cert_pem, chainPem: material.chain_pem, keyPem: material.key_pem }, await stack.pebble.root());
    t.regex(verdict.verify, /: OK$/, label);
    t.true(verdict.keyMatches, label);
  }
  stopFetches = true;
  await fetching;

  // The stream carried each domain to `issued` (it reads the same replica as the API, maybe later).
  const names = labels.map((label) => `${label}.example.test`);
  const streamed = () => names.every((name) => summaries.some((summary) => summary.name === name && summary.status === 'issued'));
  t.true(await eventually(() => Promise.resolve(streamed()), 20_000), 'the event stream showed every domain issued');
  events.abort();
  await reading;
  for (const name of names) {
    const failures = summaries.filter((summary) => summary.name === name && (summary.status === 'error' || summary.error !== null));
    t.deepEqual(
      failures.map((summary) => `${summary.status}: ${summary.error ?? ''}`),
      [],
      `${name}: no failure counted`,
    );
  }

  const terminated = killed.map((name) => (server.stdout() + server.stderr()).split(`SIGUSR2: terminated actor ${name}`).length - 1);
  t.log(`terminations ${killed.map((name, index) => `${name} ${terminated[index]}`).join(', ')}; ${fetches.length} fetches during the kills`);
  t.deepEqual(
    terminated,
    killed.map(() => rounds),
    'each signal terminated each actor',
  );
  t.deepEqual(
    fetches.filter((status) => status !== '200'),
    [],
    'fetches of an issued domain never failed',
  );
  for (const label of ['before', ...labels]) {
    const txt = (await recordsOf(stack.powerdns, `${label}.example.test`)).filter((rrset) => rrset.type === 'TXT');
    t.deepEqual(txt, [], `${label}: no challenge TXT left`);
  }
  process.kill(server.child.pid ?? 0, 'SIGTERM');
  t.is(await server.exited, 0);
});
