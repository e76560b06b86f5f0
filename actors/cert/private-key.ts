// Private key generation for ACME accounts and certificates: the module the key job (jobs.ts) runs in
// a thread of the shared pool, never on an actor's event loop.
import { generateKeyPairSync } from 'node:crypto';
import type { KeyType } from './key-types.js';

export interface PrivateKeyInput {
  keyType: KeyType;
}

/** A new private key as PKCS#8 PEM. */
export function generatePrivateKeyPem({ keyType }: PrivateKeyInput): string {
  const privateKeyEncoding = { type: 'pkcs8', format: 'pem' } as const;
  const publicKeyEncoding = { type: 'spki', format: 'pem' } as const;
  switch (keyType) {
    case 'ecdsa-p256':
      return generateKeyPairSync('ec', { namedCurve: 'prime256v1', privateKeyEncoding, publicKeyEncoding }).privateKey;
    case 'rsa-2048':
      return generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding, publicKeyEncoding }).privateKey;
    case 'rsa-4096':
      return generateKeyPairSync('rsa', { modulusLength: 4096, privateKeyEncoding, publicKeyEncoding }).privateKey;
    default:
      throw new Error(`unknown key type ${JSON.stringify(keyType satisfies never)}`);
  }
}
