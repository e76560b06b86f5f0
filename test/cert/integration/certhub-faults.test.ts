// Faults met by a certhub run on Pebble + PowerDNS: a provider refusing its credentials, PowerDNS
// down, the CA down (then back), a propagation check that never completes. Each leaves the domain in
// `error` with the reason in the admin API and a retry planned; the retry really happens (certhub's
// own backoff, acme.retry_backoff_seconds less up to a fifth: each test waits for it, so it is set to a
// few seconds, which Pebble allows and Let's Encrypt's 2 minutes would not), and no challenge record
// is left behind. Each test has its own stack, so they run side by side.
import test, { type ExecutionContext } from 'ava';
import { startCertStack, stopCertStack, type CertStack } from '../../helpers/cert-stack.js';
import { certhubDataDir, startCerthub, type RunningCerthub } from '../../helpers/certhub.js';
import { addDomain, powerdnsSection, recordsOf, stackSections, waitForDomain, type DomainView, type StackSections } from '../../helpers/certhub-domains.js';
import { startDnsGate } from '../helpers/dns-gate.js';

/** Bounds a hang of one attempt on a loaded machine (an order takes seconds, the slowest fault below 10 s). */
const attemptDeadlineMs = 90_000;

/** The first retry's delay: long enough that the retry is seen to be planned, short enough not to make the test wait. */
const retryBackoffSeconds = 3;

/** A bound on a hang of a whole test: the stack, two attempts and the backoff between them. */
const testDeadlineMs = 4 * 60_000;

async function withStack(
  t: ExecutionContext,
  sections: (stack: CertStack) => StackSections | Promise<StackSections>,
  body: (server: RunningCerthub, stack: CertStack) => Promise<void>,
): Promise<void> {
  t.timeout(testDeadlineMs);
  const stack = await startCertStack();
  try {
    const config = await sections(stack);
    const dataDir = await certhubDataDir(t, { ...config, acme: { ...config.acme, retry_backoff_seconds: retryBackoffSeconds } });
    await body(await startCerthub(t, dataDir, []), stack);
  } finally {
    await stopCertStack(stack);
  }
}

/** Adds the domain and waits for its first failure; checks the reason and the planned retry. */
async function firstFailure(t: ExecutionContext, server: RunningCerthub, label: string, target: string, reason: RegExp): Promise<DomainView> {
  const added = await addDomain(server, label, target);
  const failed = await waitForDomain(server, label, (domain) => domain.status === 'error', attemptDeadlineMs);
  t.is(failed.status, 'error', JSON.stringify(failed));
  t.regex(failed.error ?? '', reason);
  t.is(failed.token, added.token);
  t.not(failed.next_attempt_at, null, 'a retry is planned');
  t.true(Date.parse(failed.next_attempt_at ?? '') > Date.parse(failed.created_at), `the retry is later: ${failed.next_attempt_at ?? ''}`);
  // Planned when the failure was recorded, before this read: no later than the backoff from now.
  t.true(
    Date.parse(failed.next_attempt_at ?? '') <= Date.now() + retryBackoffSeconds * 1000,
    `the retry follows acme.retry_backoff_seconds: ${failed.next_attempt_at ?? ''}`,
  );
  return failed;
}

/**
 * Waits for the `attempt`-th failure in certhub's log, which comes once the planned retry ran, then
 * for the admin API to show it: the front answers from its replica, which the domains actor's change
 * reaches a moment after the log line.
 */
async function failedAgain(server: RunningCerthub, domain: DomainView, attempt: number): Promise<DomainView> {
  const waitMs = Date.parse(domain.next_attempt_at ?? '') - Date.now() + attemptDeadlineMs;
  await server.waitFor(new RegExp(`issuing ${domain.name.replaceAll('.', '\\.')} failed \\(attempt ${attempt}\\)`), waitMs);
  return waitForDomain(server, domain.label, (seen) => seen.status === 'error' && seen.next_attempt_at !== domain.next_attempt_at, attemptDeadlineMs);
}

const onlyAddress = (name: string, type: string, content: string) => [{ name, type, contents: [content] }];

test('provider auth failure: the challenge provider refuses its api_token -> error with the reason, retried, no TXT left', async (t) => {
  await withStack(
    t,
    (stack) => ({ dns_records: powerdnsSection(stack.powerdns), dns_acme: powerdnsSection(stack.powerdns, 'wrong-api-token'), ...stackSections(stack) }),
    async (server, { powerdns }) => {
      const name = 'auth.example.test';
      const failed = await firstFailure(t, server, 'auth', '203.0.113.30', /powerdns.*(401|unauthori[sz]ed|api key)/i);
      t.deepEqual(
        await recordsOf(powerdns, name),
        onlyAddress(name, 'A', '203.0.113.30'),
        'the A record was written by dns_records, no challenge TXT is there',
      );
      const again = await failedAgain(server, failed, 2);
      t.is(again.status, 'error');
      t.regex(again.error ?? '', /powerdns.*(401|unauthori[sz]ed|api key)/i);
      t.true(Date.parse(again.next_attempt_at ?? '') > Date.parse(failed.next_attempt_at ?? ''), 'the next retry is planned after this one');
      t.deepEqual(await recordsOf(powerdns, name), onlyAddress(name, 'A', '203.0.113.30'));
    },
  );
});

test('PowerDNS down: the record cannot be written -> error with the reason, retried, no order started', async (t) => {
  await withStack(
    t,
    (stack) => ({ dns: powerdnsSection(stack.powerdns), ...stackSections(stack) }),
    async (server, { powerdns }) => {
      await powerdns.stop();
      const failed = await firstFailure(t, server, 'down', '203.0.113.31', /powerdns.*(ECONNREFUSED|cannot reach|connect)/i);
      t.is((await failedAgain(server, failed, 2)).status, 'error');
      t.notRegex(server.stderr(), /TXT _acme-challenge\.down\.example\.test written/, 'no challenge record was written');
    },
  );
});

test('CA down: the order cannot reach Pebble -> error with the reason, retried; Pebble back -> issued', async (t) => {
  await withStack(
    t,
    (stack) => ({ dns: powerdnsSection(stack.powerdns), ...stackSections(stack) }),
    async (server, { powerdns, pebble }) => {
      const name = 'ca.example.test';
      // The account is opened in the background at start: halting the CA after it is open makes the CA
      // come back without it (the case checked below), not merely open it late.
      await server.waitFor(/acme: account https:\/\/127\.0\.0\.1:\d+\/my-account\/\w+ at /, attemptDeadlineMs);
      await pebble.halt();
      const failed = await firstFailure(t, server, 'ca', '203.0.113.32', /cannot reach https:\/\/127\.0\.0\.1:\d+.*ECONNREFUSED/);
      t.deepEqual(await recordsOf(powerdns, name), onlyAddress(name, 'A', '203.0.113.32'), 'the record is published, no challenge TXT is there');
      await pebble.start();
      const recovered = await waitForDomain(
        server,
        'ca',
        (domain) => domain.status === 'issued',
        Date.parse(failed.next_attempt_at ?? '') - Date.now() + attemptDeadlineMs,
      );
      t.is(recovered.status, 'issued', JSON.stringify(recovered));
      t.is(recovered.error, null);
      t.is(recovered.next_attempt_at, null);
      // The CA came back without its accounts (Pebble keeps none): certhub registered its key again.
      t.regex(server.stderr(), /the CA no longer knows account https:\/\/127\.0\.0\.1:\d+\/my-account\/\w+; registering the account key again/);
      t.deepEqual(await recordsOf(powerdns, name), onlyAddress(name, 'A', '203.0.113.32'), 'no challenge TXT is left');
    },
  );
});

test('propagation timeout: a nameserver that never answers -> error naming it, retried, the challenge TXT removed', async (t) => {
  const silent = await startDnsGate(0);
  try {
    await withStack(
      t,
      (stack) => ({ dns: powerdnsSection(stack.powerdns), ...stackSections(stack, [stack.powerdns.nameserver, silent.nameserver], 2) }),
      async (server, { powerdns }) => {
        const name = 'slow.example.test';
        const silentAt = silent.nameserver.replaceAll('.', '\\.');
        const reason = new RegExp(`TXT _acme-challenge\\.slow\\.example\\.test = ".+" was not answered within 2000 ms by ${silentAt} \\(no answer`);
        const failed = await firstFailure(t, server, 'slow', '203.0.113.33', reason);
        t.true(silent.questions() > 0, 'the silent nameserver was asked');
        t.deepEqual(await recordsOf(powerdns, name), onlyAddress(name, 'A', '203.0.113.33'), 'the challenge TXT was removed');
        t.regex((await failedAgain(server, failed, 2)).error ?? '', reason);
        t.deepEqual(await recordsOf(powerdns, name), onlyAddress(name, 'A', '203.0.113.33'));
      },
    );
  } finally {
    await silent.close();
  }
});
