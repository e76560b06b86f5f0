// The SubjectPublicKeyInfo of a key: what says a certificate and a CSR are for the same key. Apart from
// csr.ts, so that code comparing keys does not load the X.509 library (half a second of a thread's start).
import type { KeyObject } from 'node:crypto';

/** The SubjectPublicKeyInfo (DER) of a certificate's or a key's public key, to compare with a CSR's. */
export function spkiOf(key: KeyObject): Buffer {
  return key.export({ type: 'spki', format: 'der' });
}
