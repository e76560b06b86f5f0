// Private key generation, in PKCS#8 PEM: for ACME accounts and certificates (run as a job in a thread of
// the shared pool, never on an actor's event loop) and for keys a host makes and keeps itself.
import { generateKeyPairSync } from 'node:crypto';
import { keyShape, type KeyType } from './key-types.js';

export interface PrivateKeyInput {
  keyType: KeyType;
}

/** A new private key as PKCS#8 PEM. */
export function newPrivateKeyPem({ keyType }: PrivateKeyInput): string {
  const privateKeyEncoding = { type: 'pkcs8', format: 'pem' } as const;
  const publicKeyEncoding = { type: 'spki', format: 'pem' } as const;
  const shape = keyShape(keyType);
  return shape.kind === 'ec'
    ? generateKeyPairSync('ec', { namedCurve: shape.curve, privateKeyEncoding, publicKeyEncoding }).privateKey
    : generateKeyPairSync('rsa', { modulusLength: shape.bits, privateKeyEncoding, publicKeyEncoding }).privateKey;
}
