// The jobs the pool runs on the shared pool (src/jobs/job.ts): the slow passphrase derivation, once per
// process, in a pool thread.
import { declareJob } from '../../../src/jobs/job.js';
import type { Pbkdf2Input } from './pbkdf2.js';

/** PBKDF2-HMAC-SHA256 (pbkdf2.ts): the master key of the pool's files. */
export const pbkdf2Job = declareJob<Pbkdf2Input, Uint8Array>('pbkdf2Sha256', new URL('./pbkdf2.js', import.meta.url));
