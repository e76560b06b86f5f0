// What the domains actor needs done outside itself to give a domain a certificate: its address
// record published, a certificate issued: by the dns and acme actors, or, in demo mode, by nothing
// that leaves the process.
import type { KeyType } from '../key-types.js';
import type { Clock } from '../../../src/actor/clock.js';
import type { PeerLink } from '../../../src/actor/rpc.js';
import type { AcmeApi, CaAccountState, CaIdentity, IssuedMaterial, IssueOptions, RenewalInfoAnswer } from '../acme/protocol.js';
import type { OfferedProfiles } from '../acme/profiles.js';
import type { DnsApi, RecordType } from '../dns/protocol.js';
import { OutpostError } from '../../../src/errors.js';

export interface Issuer {
  /** Makes `target` the address record of `name`. */
  publishRecord(name: string, target: string, recordType: RecordType): Promise<void>;
  removeRecord(name: string): Promise<void>;
  /** Before an add: refuses (409) a name with address records certhub did not create, unless `adopt`. */
  claimRecord(name: string, adopt: boolean): Promise<void>;
  /** `options`: the CA of acme.cas to order from, the certificate being renewed (ARI `replaces`), the domain's ACME profile. */
  issue(name: string, options?: IssueOptions): Promise<IssuedMaterial>;
  /** The ACME profiles the first CA lists; null when it lists none (and in demo mode, which has no CA). */
  profiles(): Promise<OfferedProfiles | null>;
  /** The renewal information (ARI) of the CA that issued a certificate; null when it offers none; 'unknown' when that CA or account is not certhub's now. */
  renewalInfo(certId: string, ca: CaIdentity): Promise<RenewalInfoAnswer | null | 'unknown'>;
  /** Revokes a certificate at the CA that issued it (the first CA when unknown) with an RFC 5280 reason name; the CA's answer in words. */
  revoke(certPem: string, reason: string, ca: CaIdentity | null): Promise<string>;
  /** The CAs of acme.cas and their account URLs as far as known without asking them; none in demo mode. */
  accounts(): Promise<CaAccountState[]>;
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
    accounts: () => Promise.resolve([]),
    revoke: () => Promise.reject(new OutpostError('ERR_CONFLICT', 'a demo certificate has no CA to revoke it')),
    forgetOrder: () => Promise.resolve(),
    async issue(name, options) {
      if (options?.csr !== undefined) throw new OutpostError('ERR_CONFLICT', 'a demo orders no certificate for a CSR: own_key domains need a CA');
      // Loaded on first use: the X.509 library takes half a second to load, which a restart should not wait for.
      const { createDemoCertificate } = await import('./demo-certificate.js');
      const { notBefore, notAfter, ...material } = await createDemoCertificate(name, { now: clock.now(), keyType, altNames: options?.names ?? [] });
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
    issue: (name, options) => acme.call((api) => api.issue(name, options), { timeoutMs: orderTimeoutMs }),
    profiles: () => acme.call<OfferedProfiles | null>((api) => api.profiles()),
    renewalInfo: (certId, ca) => acme.call<RenewalInfoAnswer | null | 'unknown'>((api) => api.renewalInfo(certId, ca)),
    revoke: (certPem, reason, ca) => acme.call((api) => api.revoke(certPem, reason, ca)),
    accounts: () => acme.call<CaAccountState[]>((api) => api.accounts()),
    forgetOrder: (name) => acme.call((api) => api.forgetOrder(name)),
  };
}
