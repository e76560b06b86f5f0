// Key generation (a job of the shared pool) and the Retry-After reading behind the caller's backoff.
import { createPrivateKey } from 'node:crypto';
import test from 'ava';
import { parseRetryAfter } from '../../actors/cert/acme/ca-connection.js';
import { JobPool } from '../../src/jobs/pool.js';
import { keyTypes } from '../../src/jobs/key-types.js';
import { generatePrivateKeyPem } from '../../src/jobs/private-key.js';

test('each key type gives a PKCS#8 key of that type and size', (t) => {
  const expected = { 'ecdsa-p256': { type: 'ec', namedCurve: 'prime256v1' }, 'rsa-2048': { type: 'rsa', modulusLength: 2048 }, 'rsa-4096': { type: 'rsa', modulusLength: 4096 } } as const;
  for (const keyType of keyTypes) {
    const pem = generatePrivateKeyPem({ keyType });
    t.regex(pem, /^-----BEGIN PRIVATE KEY-----\n/, keyType);
    const key = createPrivateKey(pem);
    const { type, ...details } = expected[keyType];
    t.is(key.asymmetricKeyType, type, keyType);
    t.like(key.asymmetricKeyDetails, details, keyType);
  }
});

test('keys are made by the shared job pool', async (t) => {
  const jobs = new JobPool();
  try {
    const [first, second] = await Promise.all([jobs.run('generatePrivateKey', { keyType: 'ecdsa-p256' }), jobs.run('generatePrivateKey', { keyType: 'ecdsa-p256' })]);
    t.is(createPrivateKey(first).asymmetricKeyType, 'ec');
    t.not(first, second);
  } finally {
    await jobs.close();
  }
});

test('Retry-After is read as seconds or as an HTTP date', (t) => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  t.is(parseRetryAfter('120', now), 120);
  t.is(parseRetryAfter(' 0 ', now), 0);
  t.is(parseRetryAfter('Thu, 01 Jan 2026 01:00:00 GMT', now), 3600);
  t.is(parseRetryAfter('Wed, 31 Dec 2025 23:00:00 GMT', now), 0, 'a date in the past means now');
  t.is(parseRetryAfter('soon', now), undefined);
});
