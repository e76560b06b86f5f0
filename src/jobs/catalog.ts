// CPU-heavy one-off work that must never run on an actor's event loop. Each job is a pure, synchronous
// function of structured-cloneable input; the shared piscina pool runs them (see pool.ts).
import { pbkdf2Sync } from 'node:crypto';
import { generatePrivateKeyPem } from '../../actors/cert/private-key.js';

export interface Pbkdf2Input {
  password: string;
  salt: Uint8Array;
  iterations: number;
  keyLength: number;
}

export const jobCatalog = {
  /** PBKDF2-HMAC-SHA256, the key derivation for encrypted stores. */
  pbkdf2Sha256: (input: Pbkdf2Input): Uint8Array => new Uint8Array(pbkdf2Sync(input.password, input.salt, input.iterations, input.keyLength, 'sha256')),
  /** A new private key (ecdsa-p256, rsa-2048, rsa-4096) as PKCS#8 PEM, for ACME accounts and certificates. */
  generatePrivateKey: generatePrivateKeyPem,
} as const;

export type JobCatalog = typeof jobCatalog;
export type JobName = keyof JobCatalog;
export type JobInput<Name extends JobName> = Parameters<JobCatalog[Name]>[0];
export type JobOutput<Name extends JobName> = ReturnType<JobCatalog[Name]>;

export interface JobRequest<Name extends JobName = JobName> {
  name: Name;
  input: JobInput<Name>;
}

export function isJobName(name: unknown): name is JobName {
  return typeof name === 'string' && Object.hasOwn(jobCatalog, name);
}
