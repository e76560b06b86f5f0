// The private key types certhub orders certificates for and certhub-agent --own-key makes; apart from
// the key generation, so that the browser pages can read the type without loading node:crypto.

/** The key types `acme.key_type` accepts; ecdsa-p256 is the default. */
export const keyTypes = ['ecdsa-p256', 'ecdsa-p384', 'rsa-2048', 'rsa-3072', 'rsa-4096'] as const;
export type KeyType = (typeof keyTypes)[number];

/** The curve of an ECDSA type, the modulus length of an RSA one. */
export function keyShape(keyType: KeyType): { kind: 'ec'; curve: 'P-256' | 'P-384' } | { kind: 'rsa'; bits: 2048 | 3072 | 4096 } {
  switch (keyType) {
    case 'ecdsa-p256':
      return { kind: 'ec', curve: 'P-256' };
    case 'ecdsa-p384':
      return { kind: 'ec', curve: 'P-384' };
    case 'rsa-2048':
      return { kind: 'rsa', bits: 2048 };
    case 'rsa-3072':
      return { kind: 'rsa', bits: 3072 };
    case 'rsa-4096':
      return { kind: 'rsa', bits: 4096 };
    default:
      throw new Error(`unknown key type ${JSON.stringify(keyType satisfies never)}`);
  }
}
