import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import { ariCertId, defaultAriCheckIntervalMs, parseRenewalInfo, renewalInfoUrl } from '../../../actors/cert/renewal/ari.js';
import { readCertificateFacts } from '../../../actors/cert/renewal/certificate-facts.js';
import { clampRetryAfter } from '../../../actors/cert/renewal/retry-after.js';
import { certDataDir } from '../../helpers/cert-files.js';
import { testCertificate } from '../../helpers/certificates.js';
import { p256KeyArgs, writeSelfSigned } from '../../../benchmarks/third-party/openssl.js';

const run = promisify(execFile);
const day = 86_400_000;
const notBefore = new Date('2025-01-01T00:00:00Z');
const notAfter = new Date('2025-04-01T00:00:00Z');

test('CertID of RFC 9773 §4.1: the serial keeps its 0x00 sign byte, which Node drops', async (t) => {
  const { certPem } = await testCertificate({ serialHex: '87654321', notBefore, notAfter, authorityKeyIdHex: '69885b6b87464041e1b37b847ba0ae2cde01c8d4' });
  const facts = readCertificateFacts(certPem);
  t.deepEqual([...facts.serial], [0x00, 0x87, 0x65, 0x43, 0x21]);
  t.is(ariCertId(facts), 'aYhba4dGQEHhs3uEe6CuLN4ByNQ.AIdlQyE');
  t.is(new X509Certificate(certPem).serialNumber.toLowerCase(), '87654321', 'the reason for parsing the DER ourselves');
  const low = readCertificateFacts((await testCertificate({ serialHex: '12345678', notBefore, notAfter })).certPem);
  t.is(ariCertId(low).split('.')[1], 'EjRWeA');
});

test('CertID of a certificate made by openssl matches its own AKI and serial', async (t) => {
  const dir = await certDataDir(t);
  const [certFile, keyFile] = [join(dir, 'cert.pem'), join(dir, 'key.pem')];
  await writeSelfSigned({
    keyFile,
    certFile,
    subject: '/CN=app.example.com',
    days: 7,
    serial: '0x87654321',
    extensions: ['subjectKeyIdentifier=hash', 'authorityKeyIdentifier=keyid:always'],
  });
  const { stdout } = await run('openssl', ['x509', '-in', certFile, '-noout', '-ext', 'authorityKeyIdentifier']);
  const keyIdHex = /([0-9A-F]{2}(?::[0-9A-F]{2})+)/.exec(stdout)?.[1]?.replace(/:/g, '') ?? '';
  t.is(keyIdHex.length, 40, stdout);
  const facts = readCertificateFacts(await readFile(certFile, 'utf8'));
  t.is(ariCertId(facts), `${Buffer.from(keyIdHex, 'hex').toString('base64url')}.AIdlQyE`);
  t.is(facts.notAfter - facts.notBefore, 7 * day);
});

test('a certificate without an authority key identifier has no CertID', async (t) => {
  const facts = readCertificateFacts((await testCertificate({ notBefore, notAfter, authorityKeyIdHex: null })).certPem);
  t.is(facts.authorityKeyId, undefined);
  t.throws(() => ariCertId(facts), { message: 'the certificate has no authority key identifier, so it has no ARI CertID' });
  t.throws(() => readCertificateFacts('not a certificate'));
});

test('a version 1 certificate, which has no extensions at all, has facts without an authority key identifier', async (t) => {
  const dir = await certDataDir(t);
  const [certFile, keyFile] = [join(dir, 'cert.pem'), join(dir, 'key.pem')];
  // Without a configuration file openssl adds no extension, and a certificate without any is version 1.
  await run('openssl', [
    'req',
    '-x509',
    ...p256KeyArgs,
    '-keyout',
    keyFile,
    '-out',
    certFile,
    '-subj',
    '/CN=old.example.com',
    '-days',
    '7',
    '-config',
    '/dev/null',
  ]);
  const certificate = await readFile(certFile, 'utf8');
  const facts = readCertificateFacts(certificate);
  t.is(facts.authorityKeyId, undefined);
  t.is(facts.notAfter - facts.notBefore, 7 * day);
});

test('facts: validity of a real certificate, to the second', async (t) => {
  const facts = readCertificateFacts((await testCertificate({ notBefore, notAfter })).certPem);
  t.is(facts.notBefore, notBefore.getTime());
  t.is(facts.notAfter, notAfter.getTime());
});

test('renewalInfo URL: the CertID appended as one path segment', (t) => {
  t.is(renewalInfoUrl('https://ca.example/acme/renewal-info', 'a.b'), 'https://ca.example/acme/renewal-info/a.b');
  t.is(renewalInfoUrl('https://ca.example/acme/renewal-info/', 'a.b'), 'https://ca.example/acme/renewal-info/a.b');
  t.is(renewalInfoUrl('https://ca.example/acme/renewal-info//', 'a.b'), 'https://ca.example/acme/renewal-info/a.b');
});

test('a renewalInfo answer: window, explanation, next check from Retry-After clamped to a minute .. a day', (t) => {
  const now = Date.parse('2025-02-01T00:00:00Z');
  const body = { suggestedWindow: { start: '2025-03-01T00:00:00Z', end: '2025-03-02T12:00:00Z' }, explanationURL: 'https://ca.example/why' };
  t.deepEqual(parseRenewalInfo(body, '21600', now), {
    ok: true,
    window: { start: Date.parse('2025-03-01T00:00:00Z'), end: Date.parse('2025-03-02T12:00:00Z') },
    explanationUrl: 'https://ca.example/why',
    nextCheckAt: now + 21_600_000,
  });
  const check = (retryAfter: string | undefined) => parseRenewalInfo(body, retryAfter, now).nextCheckAt - now;
  t.is(check('5'), 60_000);
  t.is(check('604800'), day);
  t.is(check(undefined), defaultAriCheckIntervalMs);
  t.is(check('Sat, 01 Feb 2025 03:00:00 GMT'), 3 * 3_600_000);
  t.is(check('soon'), defaultAriCheckIntervalMs);
  const plain = parseRenewalInfo({ suggestedWindow: body.suggestedWindow, explanationURL: 'javascript:alert(1)' }, undefined, now);
  t.true(plain.ok && plain.explanationUrl === undefined, 'only an http(s) explanation is kept');
  const explanation = (explanationURL: unknown) => {
    const answer = parseRenewalInfo({ suggestedWindow: body.suggestedWindow, explanationURL }, undefined, now);
    return answer.ok ? answer.explanationUrl : answer.reason;
  };
  t.is(explanation('http://ca.example/why'), 'http://ca.example/why');
  t.is(explanation('see https://ca.example/why'), undefined, 'a text that only holds a URL');
  t.is(explanation(['https://ca.example/why']), undefined, 'a URL in a list');
});

test('a window that ends before it starts, or a malformed answer, is a failure with a reason and a next check', (t) => {
  const now = 0;
  const inverted = parseRenewalInfo({ suggestedWindow: { start: '2025-03-02T00:00:00Z', end: '2025-03-01T00:00:00Z' } }, '120', now);
  t.deepEqual(inverted, {
    ok: false,
    reason: 'renewalInfo answer has a suggestedWindow that ends (2025-03-01T00:00:00Z) before it starts (2025-03-02T00:00:00Z)',
    nextCheckAt: 120_000,
  });
  const empty = parseRenewalInfo({ suggestedWindow: { start: '2025-03-01T00:00:00Z', end: '2025-03-01T00:00:00Z' } }, undefined, now);
  t.false(empty.ok);
  for (const [answer, reason] of [
    [null, 'renewalInfo answer is not a JSON object'],
    ['{"suggestedWindow":{}}', 'renewalInfo answer is not a JSON object'],
    [{}, 'renewalInfo answer has no suggestedWindow'],
    [{ suggestedWindow: null }, 'renewalInfo answer has no suggestedWindow'],
    [{ suggestedWindow: { start: 'yesterday', end: 5 } }, 'renewalInfo answer has a suggestedWindow without valid start and end times'],
    // Date.parse would read the numbers as texts: 5 as a date in 2001, 2030 as that year.
    [{ suggestedWindow: { start: 5, end: '2025-03-01T00:00:00Z' } }, 'renewalInfo answer has a suggestedWindow without valid start and end times'],
    [{ suggestedWindow: { start: '2025-03-01T00:00:00Z', end: 2030 } }, 'renewalInfo answer has a suggestedWindow without valid start and end times'],
  ] as const) {
    t.like(parseRenewalInfo(answer, undefined, now), { ok: false, reason });
  }
});

test('a renewalInfo Retry-After is clamped to a minute .. a day', (t) => {
  t.is(clampRetryAfter(0), 60_000);
  t.is(clampRetryAfter(3_600_000), 3_600_000);
  t.is(clampRetryAfter(7 * day), day);
});
