import test from 'ava';
import { estimatedSecretBits, minimumSecretBits } from '../../src/crypto/secret-strength.js';

test('bits are length × log2 of the alphabet the characters come from', (t) => {
  t.is(estimatedSecretBits(''), 0);
  t.is(estimatedSecretBits('0123456789'), Math.floor(10 * Math.log2(10)), 'digits');
  t.is(estimatedSecretBits('0123456789abcdef0123456789abcdef'), 128, '32 hexadecimal digits');
  t.is(estimatedSecretBits('0123456789ABCDEF0123456789ABCDEF'), 128, 'in capitals too');
  t.is(estimatedSecretBits('abcdefghijklmnopqrstuv'), Math.floor(22 * Math.log2(26)), 'lower-case letters');
  t.is(estimatedSecretBits('aB3-aB3-aB3-aB3-aB3-aB'), 22 * 6, 'base64url: 64 characters');
  t.is(estimatedSecretBits('aB3+'), Math.floor(4 * Math.log2(26 + 26 + 10 + 31)), 'other punctuation is a class of its own');
  t.is(estimatedSecretBits('été'), Math.floor(3 * Math.log2(26 + 128)), 'characters, not bytes');
});

test('the threshold: 22 base64url characters or 32 hexadecimal digits pass; a person-made phrase and the old 16-character minimum do not', (t) => {
  const passes = (secret: string) => estimatedSecretBits(secret) >= minimumSecretBits;
  t.true(passes('0123456789abcdef0123456789abcdef'));
  t.false(passes('0123456789abcdef0123456789abcde'));
  t.true(passes('Zx8_k2Lq-Pw4Nv7Ry1Tb3M'));
  t.false(passes('correct-horse-battery'));
  t.false(passes('a1B2c3D4e5F6g7H8'));
  t.true(passes('cha_0123456789abcdef0123456789abcdef'));
});
