// What the domains actor needs done outside itself to give a domain a certificate: its address
// record published, a certificate issued: by the dns and acme actors, or, in demo mode, by nothing
// that leaves the process.
import type { KeyType } from '../key-types.js';
import type { Clock } from '../../../src/actor/clock.js';
import type { PeerLink } from '../../../src/actor/rpc.js';
import type { AcmeApi, IssuedMaterial, RenewalInfoAnswer } from '../acme/protocol.js';
import type { OfferedProfiles } from '../acme/profiles.js';
import type { DnsApi, RecordType } from '../dns/protocol.js';
import { OutpostError } from '../../../src/errors.js';

export interface Issuer {
  /** Makes `target` the address record of `name`. */
  publishRecord(name: string, target: string, recordType: RecordType): Promise<void>;
  removeRecord(name: string): Promise<void>;
  /** Before an add: refuses (409) a name with address records certhub did not create, unless `adopt`. */
  claimRecord(name: string, adopt: boolean): Promise<void>;
  /** `replaces`: ARI CertID of the certificate being renewed, when the CA offers ARI; `profile`: the domain's ACME profile. */
  issue(name: string, replaces?: string, profile?: string): Promise<IssuedMaterial>;
  /** The ACME profiles the CA lists; null when it lists none (and in demo mode, which has no CA). */
  profiles(): Promise<OfferedProfiles | null>;
  /** The CA's renewal information (ARI) for a certificate; null when the CA offers none. */
  renewalInfo(certId: string): Promise<RenewalInfoAnswer | null>;
  /** Revokes a certificate at the CA with an RFC 5280 reason name; the CA's answer in words. */
  revoke(certPem: string, reason: string): Promise<string>;
  /** Drops the order left open for `name`, so that its next certificate has a new key. */
  forgetOrder(name: string): Promise<void>;
}

/** `--demo`: no record anywhere, a self-signed certificate whose issuer says it is a demo. */
export function demoIssuer(clock: Clock, keyType: KeyType): Issuer {
  return {
    publishRecord: () => Promise.resolve(),
    removeRecord: () => Promise.resolve(),
    claimRecord: () => Promise.resolve(),
    renewalInfo: () => Promise.resolve(null),
    profiles: () => Promise.resolve(null),
    revoke: () => Promise.reject(new OutpostError('ERR_CONFLICT', 'a demo certificate has no CA to revoke it')),
    forgetOrder: () => Promise.resolve(),
    async issue(name) {
      // Loaded on first use: the X.509 library takes half a second to load, which a restart should not wait for.
      const { createDemoCertificate } = await import('./demo-certificate.js');
      const { notBefore, notAfter, ...material } = await createDemoCertificate(name, { now: clock.now(), keyType });
      return { material, notBefore, notAfter };
    },
  };
}

/** The dns actor publishes records, the acme actor runs the order (which may wait out DNS propagation). */
export function actorIssuer(dns: PeerLink<DnsApi>, acme: PeerLink<AcmeApi>, orderTimeoutMs: number): Issuer {
  return {
    publishRecord: async (name, target) => {
      await dns.call((api) => api.setAddress(name, target));
    },
    removeRecord: (name) => dns.call((api) => api.removeAddress(name)),
    claimRecord: (name, adopt) => dns.call((api) => api.claimAddress(name, adopt)),
    issue: (name, replaces, profile) => acme.call((api) => api.issue(name, replaces, profile), { timeoutMs: orderTimeoutMs }),
    profiles: () => acme.call<OfferedProfiles | null>((api) => api.profiles()),
    renewalInfo: (certId) => acme.call<RenewalInfoAnswer | null>((api) => api.renewalInfo(certId)),
    revoke: (certPem, reason) => acme.call((api) => api.revoke(certPem, reason)),
    forgetOrder: (name) => acme.call((api) => api.forgetOrder(name)),
  };
}
