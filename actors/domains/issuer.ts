// What the domains actor needs done outside itself to give a domain a certificate: its address
// record published, a certificate issued. Demo mode does both without contacting anything.
import type { KeyType } from '../../src/config/cert.js';
import type { Clock } from '../../src/actor/clock.js';
import { createDemoCertificate } from './demo-certificate.js';
import type { Material } from './material.js';
import type { RecordType } from './names.js';

export interface IssuedMaterial {
  material: Material;
  /** Epoch milliseconds. */
  notBefore: number;
  notAfter: number;
}

export interface Issuer {
  /** Makes `target` the address record of `name`. */
  publishRecord(name: string, target: string, recordType: RecordType): Promise<void>;
  removeRecord(name: string): Promise<void>;
  issue(name: string): Promise<IssuedMaterial>;
}

/** `--demo`: no record anywhere, a self-signed certificate whose issuer says it is a demo. */
export function demoIssuer(clock: Clock, keyType: KeyType): Issuer {
  return {
    publishRecord: () => Promise.resolve(),
    removeRecord: () => Promise.resolve(),
    async issue(name) {
      const { notBefore, notAfter, ...material } = await createDemoCertificate(name, { now: clock.now(), keyType });
      return { material, notBefore, notAfter };
    },
  };
}
