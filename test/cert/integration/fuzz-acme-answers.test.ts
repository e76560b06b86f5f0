// The answers certhub's ACME client reads, made garbage: garbage-ca.ts, in front of
// Pebble, answers one step of the order (directory, nonce, account, order, authorization, challenge,
// finalize, certificate, renewalInfo) with wrong JSON, missing fields, HTML, cut or endless bodies,
// odd statuses and content types, odd nonces, bad chains. Property: every attempt ends, either with
// a certificate that matches its key and name or with an OutpostError whose reason is one readable
// line (no stack trace, no key), and renewalInfo ends in an answer or such an error.
import assert from 'node:assert/strict';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import fc from 'fast-check';
import { openAcmeAccount, type AcmeAccount } from '../../../actors/cert/acme/account.js';
import { issueCertificate } from '../../../actors/cert/acme/order.js';
import { fetchRenewalInfo } from '../../../actors/cert/acme/renewal-info.js';
import { AuthoritativeDns } from '../../../actors/cert/acme/propagation.js';
import { createDnsProvider } from '../../../actors/cert/dns/providers/create.js';
import { OutpostError } from '../../../src/errors.js';
import { generatePrivateKeyPem } from '../../../actors/cert/private-key.js';
import { startGarbageCa, type AcmeGarbage, type AcmeStep, type GarbageCa } from '../fixtures/acme/garbage-ca.js';
import { testCertificate } from '../../helpers/certificates.js';
import { startCertStack, stopCertStack, type CertStack } from '../../helpers/cert-stack.js';
import { checkAsyncProperty } from '../../helpers/fuzz.js';
import { projectPath, startProcess } from '../../helpers/process.js';

const generateKey = (keyType: Parameters<typeof generatePrivateKeyPem>[0]['keyType']) => Promise.resolve(generatePrivateKeyPem({ keyType }));
/** A reason longer than this is not one readable line (a body quoted whole). */
const readableLength = 1500;
const mib = 1024 * 1024;

function garbageFor(pems: readonly string[]): fc.Arbitrary<AcmeGarbage> {
  const odd = fc.oneof(
    fc.constant(null),
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.string({ maxLength: 20 }),
    fc.array(fc.integer(), { maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 5 }), fc.integer(), { maxKeys: 2 }),
  );
  return fc.oneof(
    fc.record({ kind: fc.constant('json' as const), json: fc.oneof(odd, fc.jsonValue({ maxDepth: 3 })) }),
    fc.record({ kind: fc.constant('retyped-fields' as const), values: fc.array(odd, { minLength: 1, maxLength: 6 }) }),
    fc.record({ kind: fc.constant('missing-fields' as const), drop: fc.array(fc.nat(), { minLength: 1, maxLength: 4 }) }),
    fc.record({ kind: fc.constant('html' as const), status: fc.constantFrom(200, 201, 404, 500, 502, 503) }),
    fc.record({ kind: fc.constant('cut' as const), keep: fc.nat() }),
    fc.record({ kind: fc.constant('cut-connection' as const), keep: fc.nat() }),
    fc.record({
      kind: fc.constant('content-type' as const),
      contentType: fc.constantFrom('text/html', 'application/octet-stream', 'text/plain; charset=latin1', 'application/pem-certificate-chain', ''),
    }),
    fc.record({ kind: fc.constant('problem' as const), status: fc.constantFrom(200, 201, 204, 400, 404, 409, 500, 503) }),
    fc.record({ kind: fc.constant('redirect' as const), status: fc.constantFrom(301, 302, 303, 307, 308) }),
    fc.record({ kind: fc.constant('nonce' as const), nonce: fc.option(fc.string({ maxLength: 40 }), { nil: undefined }) }),
    fc.record({ kind: fc.constant('pem' as const), pem: fc.constantFrom(...pems) }),
    fc.record({ kind: fc.constant('appended' as const), text: fc.constantFrom(...pems.slice(1)) }),
  );
}

/** The reason an attempt failed with, checked readable and free of secrets; throws (fails the property) otherwise. */
function assertReadable(error: unknown, context: string, { outpostError = true } = {}): void {
  assert.ok(
    error instanceof Error && (!outpostError || error instanceof OutpostError),
    `${context}: not an ${outpostError ? 'OutpostError' : 'Error'}: ${error instanceof Error ? error.stack : String(error)}`,
  );
  assert.ok(error.message.length <= readableLength, `${context}: a reason of ${error.message.length} characters: ${error.message.slice(0, 300)}…`);
  assert.doesNotMatch(error.message, /\n\s+at /, `${context}: a stack trace in the reason`);
  assert.doesNotMatch(error.message, /PRIVATE KEY/, `${context}: a key in the reason`);
}

interface Attempt {
  dir: string;
  account: AcmeAccount | undefined;
}

/** Opens a fresh account through the garbage CA and orders `name`: the certificate, or the error. */
async function attempt(
  stack: CertStack,
  ca: GarbageCa,
  name: string,
  caPem: string,
  run: Attempt,
): Promise<{ certPem: string; keyPem: string } | { error: unknown }> {
  try {
    run.account = await openAcmeAccount({
      acceptTerms: true,
      directoryUrl: ca.directoryUrl,
      caBundlePem: caPem,
      dir: run.dir,
      generateKey,
      polling: { minMs: 20, maxMs: 200, attempts: 5 },
    });
    const { powerdns } = stack;
    const issued = await issueCertificate(
      { name, keyType: 'ecdsa-p256' },
      {
        account: run.account,
        dns: createDnsProvider({ provider: 'powerdns', server_url: powerdns.apiUrl, api_token: powerdns.apiKey, zone: powerdns.zone }),
        authoritative: new AuthoritativeDns({ nameservers: [powerdns.nameserver] }),
        propagation: { timeoutMs: 10_000, intervalMs: 50 },
        validation: { minMs: 50, maxMs: 200, deadlineMs: 5000 },
        generateKey,
      },
    );
    return { certPem: issued.certPem, keyPem: issued.keyPem };
  } catch (error) {
    return { error };
  }
}

const property = test.macro(async (t, steps: readonly AcmeStep[], numRuns: number) => {
  const stack = await startCertStack();
  const ca = await startGarbageCa(stack.pebble);
  const caPem = await readFile(stack.pebble.caFile, 'utf8');
  const notBefore = new Date(Date.now() - 3_600_000);
  const notAfter = new Date(Date.now() + 86_400_000);
  const otherName = await testCertificate({ name: `other.${stack.powerdns.zone}`, notBefore, notAfter });
  const pems = ['', 'not a certificate\n', '-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n', otherName.certPem];
  let count = 0;
  try {
    const run = fc.asyncProperty(fc.constantFrom(...steps), garbageFor(pems), async (step, garbage) => {
      count += 1;
      const name = `fuzz${count}.${stack.powerdns.zone}`;
      // A certificate for the name asked, with a key the client never had.
      const otherKey = await testCertificate({ name, notBefore, notAfter });
      const chosen = garbage.kind === 'pem' && garbage.pem === '' ? { kind: 'pem' as const, pem: otherKey.certPem } : garbage;
      const attemptState: Attempt = { dir: await mkdtemp(join(tmpdir(), 'outpost-acme-fuzz-')), account: undefined };
      ca.garbage = { step, garbage: chosen };
      const label = `${step} ${JSON.stringify(chosen).slice(0, 200)}`;
      try {
        const outcome = await attempt(stack, ca, name, caPem, attemptState);
        if ('error' in outcome) assertReadable(outcome.error, label);
        else {
          const leaf = new X509Certificate(outcome.certPem);
          assert.ok(leaf.checkPrivateKey(createPrivateKey(outcome.keyPem)), `${label}: a certificate taken that does not match its key`);
          assert.ok(leaf.checkHost(name) !== undefined, `${label}: a certificate taken that is not for ${name}`);
        }
        if (attemptState.account !== undefined) {
          const info = await fetchRenewalInfo(attemptState.account, 'aaaa.bbbb', Date.now()).then(
            (answer) => answer,
            (error: unknown) => ({ error }),
          );
          // The renewal plan keeps any failure's message as the reason it asks again later (domains/renewals.ts askRenewalInfo).
          if (info !== null && 'error' in info) assertReadable(info.error, `renewalInfo, ${label}`, { outpostError: false });
          else if (info !== null && info.ok) assert.ok(info.window.start < info.window.end, `${label}: a renewal window that ends before it starts`);
        }
      } finally {
        ca.garbage = undefined;
        attemptState.account?.close();
        await rm(attemptState.dir, { recursive: true, force: true });
      }
    });
    await checkAsyncProperty(t, run, numRuns, { shrink: false });
    t.true(ca.replaced > 0, 'garbage was answered');
  } finally {
    await ca.close();
    await stopCertStack(stack);
  }
});

test(
  'garbage from the CA before the order (directory, nonce, account): every attempt ends in a readable error or a sound certificate',
  property,
  ['directory', 'nonce', 'account', 'renewalInfo'],
  40,
);
test(
  'garbage from the CA during the order (order, authorization, challenge, finalize, certificate): every attempt ends in a readable error or a sound certificate',
  property,
  ['order', 'authorization', 'challenge', 'finalize', 'certificate'],
  40,
);

// The read runs in a process of its own (fixtures/acme/open-account-peak.ts), whose peak resident set
// is that read's alone: the worker's process also holds this file's other tests.
test('a CA answer without end is not read past a bound: the step fails and memory stays flat', async (t) => {
  const stack = await startCertStack();
  const ca = await startGarbageCa(stack.pebble);
  const dir = await mkdtemp(join(tmpdir(), 'outpost-acme-fuzz-'));
  try {
    ca.garbage = { step: 'directory', garbage: { kind: 'huge', bytes: 512 * mib } };
    const reader = startProcess(t, process.execPath, [
      projectPath('dist/test/cert/fixtures/acme/open-account-peak.js'),
      ca.directoryUrl,
      stack.pebble.caFile,
      dir,
    ]);
    t.is(await reader.exited, 0);
    const { error, grownBytes } = JSON.parse(reader.stdout()) as { error: { message: string; outpost: boolean } | null; grownBytes: number };
    t.log(`${error?.message ?? ''}; peak RSS grew ${(grownBytes / mib).toFixed(1)} MiB`);
    t.true(error?.outpost, 'an OutpostError');
    t.true((error?.message.length ?? 0) <= readableLength, 'one readable line');
    t.regex(error?.message ?? '', /larger than \d+ bytes/);
    t.true(grownBytes < 64 * mib, `peak RSS grew ${(grownBytes / mib).toFixed(1)} MiB reading one answer`);
  } finally {
    await ca.close();
    await stopCertStack(stack);
    await rm(dir, { recursive: true, force: true });
  }
});

// Regressions the property found (seed 2028), kept as examples checked on every run.
const refusedWith = test.macro(async (t, step: AcmeStep, garbage: AcmeGarbage, reason: RegExp) => {
  const stack = await startCertStack();
  const ca = await startGarbageCa(stack.pebble);
  const run: Attempt = { dir: await mkdtemp(join(tmpdir(), 'outpost-acme-fuzz-')), account: undefined };
  try {
    ca.garbage = { step, garbage };
    const outcome = await attempt(stack, ca, `regression.${stack.powerdns.zone}`, await readFile(stack.pebble.caFile, 'utf8'), run);
    t.true('error' in outcome, 'the order failed');
    if (!('error' in outcome)) return;
    t.notThrows(() => assertReadable(outcome.error, step));
    t.regex((outcome.error as Error).message, reason);
  } finally {
    run.account?.close();
    await ca.close();
    await stopCertStack(stack);
    await rm(run.dir, { recursive: true, force: true });
  }
});

test(
  'an authorization whose fields have the wrong types fails the order with the reason, not a TypeError (seed 2028)',
  refusedWith,
  'authorization',
  { kind: 'retyped-fields', values: [null, 'X9Hbp7ZUH', { '': -1 }, null] },
  /^acme: the CA sent an authorization \(.*\) without an identifier or a list of challenges$/,
);
test(
  'a chain with a block that is no certificate after the leaf is refused, not stored',
  refusedWith,
  'certificate',
  { kind: 'appended', text: '-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n' },
  /^acme: certificate 3 of the chain the CA sent for regression\..* cannot be read/,
);
test(
  'a certificate answer that is JSON, not PEM, fails the order with the reason (seed 2028)',
  refusedWith,
  'certificate',
  { kind: 'json', json: { ';|R7T#%': true, SnaI: '\\++ e' } },
  /^acme: the CA sent for regression\..* a certificate chain that is not PEM text$/,
);
