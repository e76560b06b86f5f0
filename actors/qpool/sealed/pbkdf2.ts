// The passphrase derivation of the pool's files (sealed.ts): the module the PBKDF2 job (jobs.ts) runs in
// a thread of the shared pool, never on an actor's event loop.
import { pbkdf2Sync } from 'node:crypto';

export interface Pbkdf2Input {
  password: string;
  salt: Uint8Array;
  iterations: number;
  keyLength: number;
}

/** PBKDF2-HMAC-SHA256. */
export function pbkdf2Sha256(input: Pbkdf2Input): Uint8Array {
  return new Uint8Array(pbkdf2Sync(input.password, input.salt, input.iterations, input.keyLength, 'sha256'));
}
