// The shared store's sealed secrets: AES-256-GCM under the store key, each value bound to its place,
// opened by the key it names (so a rotation keeps old values readable until they are sealed again).
import { randomBytes } from 'node:crypto';
import test from 'ava';
import { parseStoreKey, SecretBox, storeKey } from '../../../actors/cert/postgres/secret-box.js';

const place = 'domains/app.example.com/key';
const secret = '-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg\n-----END PRIVATE KEY-----\n';

test('a sealed value opens to its plaintext and shows none of it', (t) => {
  const box = new SecretBox(storeKey(randomBytes(32)));
  const sealed = box.seal(secret, place);
  t.regex(sealed, /^v1\.[0-9a-f]{16}\.[A-Za-z0-9_-]+$/);
  t.false(sealed.includes('PRIVATE KEY'));
  t.is(box.open(sealed, place), secret);
  t.not(box.seal(secret, place), sealed, 'each seal has its own nonce');
});

test('a value moved to another place, altered, or sealed under an unknown key does not open', (t) => {
  const key = storeKey(randomBytes(32));
  const box = new SecretBox(key);
  const sealed = box.seal(secret, place);
  t.throws(() => box.open(sealed, 'domains/other.example.com/key'), { message: /does not open: altered, or moved from another place/ });
  const body = Buffer.from(sealed.split('.')[2] ?? '', 'base64url');
  body[20] = (body[20] ?? 0) ^ 1;
  t.throws(() => box.open(`v1.${key.id}.${body.toString('base64url')}`, place), { message: /does not open/ });
  const stranger = new SecretBox(storeKey(randomBytes(32)));
  t.throws(() => stranger.open(sealed, place), { message: new RegExp(`sealed with store key ${key.id}, which this node does not have`) });
  t.throws(() => box.open('plain text', place), { message: /is not a sealed value/ });
  t.throws(() => box.open(`v1.${key.id}.AAAA`, place), { message: /shorter than its nonce and tag/ });
});

test('after a rotation the previous key still opens what it sealed, and new values use the new key', (t) => {
  const old = storeKey(randomBytes(32));
  const sealedBefore = new SecretBox(old).seal(secret, place);
  const rotated = new SecretBox(storeKey(randomBytes(32)), [old]);
  t.is(rotated.open(sealedBefore, place), secret);
  t.false(rotated.isCurrent(sealedBefore));
  t.true(rotated.isCurrent(rotated.seal(secret, place)));
});

test('the store key is read as base64 or hex, and anything else is refused with how to make one', (t) => {
  const bytes = randomBytes(32);
  t.deepEqual(parseStoreKey(`${bytes.toString('base64')}\n`).key, bytes);
  t.deepEqual(parseStoreKey(bytes.toString('hex').toUpperCase()).key, bytes);
  t.is(parseStoreKey(bytes.toString('base64')).id, storeKey(bytes).id);
  for (const bad of ['', 'short', randomBytes(16).toString('base64'), randomBytes(33).toString('base64'), `${bytes.toString('hex')}00`])
    t.throws(() => parseStoreKey(bad), { message: /openssl rand -base64 32/ }, JSON.stringify(bad));
});
