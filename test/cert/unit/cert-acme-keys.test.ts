// Key generation (a job of the shared pool).
import { createPrivateKey } from 'node:crypto';
import test from 'ava';
import { JobPool } from '../../../src/jobs/pool.js';
import { keyTypes } from '../../../actors/cert/key-types.js';
import { generatePrivateKeyPem } from '../../../actors/cert/private-key.js';
import { generatePrivateKeyJob } from '../../../actors/cert/jobs.js';

test('each key type gives a PKCS#8 key of that type and size', (t) => {
  const expected = {
    'ecdsa-p256': { type: 'ec', namedCurve: 'prime256v1' },
    'ecdsa-p384': { type: 'ec', namedCurve: 'secp384r1' },
    'rsa-2048': { type: 'rsa', modulusLength: 2048 },
    'rsa-3072': { type: 'rsa', modulusLength: 3072 },
    'rsa-4096': { type: 'rsa', modulusLength: 4096 },
  } as const;
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
    const [first, second] = await Promise.all([
      jobs.run(generatePrivateKeyJob, { keyType: 'ecdsa-p256' }),
      jobs.run(generatePrivateKeyJob, { keyType: 'ecdsa-p256' }),
    ]);
    t.is(createPrivateKey(first).asymmetricKeyType, 'ec');
    t.not(first, second);
  } finally {
    await jobs.close();
  }
});
