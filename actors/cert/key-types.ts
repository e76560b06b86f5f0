// The private key types certhub can ask certificates for; apart from the key generation, so that the
// browser pages can read the type without loading node:crypto.

/** The key types `acme.key_type` accepts; ecdsa-p256 is the default. */
export const keyTypes = ['ecdsa-p256', 'rsa-2048', 'rsa-4096'] as const;
export type KeyType = (typeof keyTypes)[number];
