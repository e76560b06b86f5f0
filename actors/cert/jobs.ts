// The jobs the cert role runs on the shared pool (src/jobs/job.ts): a private key for an ACME account
// or a certificate, made in a pool thread since an RSA-4096 key takes a second or more of CPU.
import { declareJob } from '../../src/jobs/job.js';
import type { PrivateKeyInput } from './private-key.js';

/** A new private key as PKCS#8 PEM (private-key.ts). */
export const generatePrivateKeyJob = declareJob<PrivateKeyInput, string>('generatePrivateKeyPem', new URL('./private-key.js', import.meta.url));
