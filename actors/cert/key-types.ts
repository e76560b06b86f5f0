// The private key types certhub can ask certificates for.
export const keyTypes = ['ecdsa-p256', 'rsa-2048', 'rsa-4096'] as const;
export type KeyType = (typeof keyTypes)[number];
