// The acme actor: holds the ACME account and runs DNS-01 orders, writing challenge records through
// the dns actor (its dns_acme provider) and checking them at the authoritative nameservers first.
import type { ActorRef } from '../../../src/actor/kind.js';
import type { KeyType } from '../key-types.js';
import type { OfferedProfiles } from './profiles.js';

/** The CA and account that issued a certificate: what its ARI CertID is known to. */
export interface CaIdentity {
  directoryUrl: string;
  accountUrl: string;
}

/** One CA of acme.cas, in the order they are tried. */
export interface AcmeCaSettings {
  directoryUrl: string;
  /** Its eab (eab.ts checks it): sent when its account is registered. */
  eab?: { kid: string; hmac_key: string };
  /** Its accept_terms: the CA's terms of service are agreed to when the account is registered. */
  acceptTerms: boolean;
  /** Its profile: ordered for a domain that names no profile of its own. */
  profile?: string;
  /** Its preferred_chain: the issuer common name the chain should end with. */
  preferredChain?: string;
  /** Path of extra CA certificates trusted for the CA's HTTPS. */
  caBundleFile?: string;
}

export interface AcmeConfig {
  /** The accounts live in `<dataDir>/acme/` (account-folders.ts). */
  dataDir: string;
  /** acme.cas (the single-CA form is a list of one): orders go to the CA a domain's attempt names. */
  cas: AcmeCaSettings[];
  email?: string;
  keyType: KeyType;
  /** Writes the challenge records: the one writer of the zones. */
  dns: ActorRef<ChallengeRecords>;
  /** `host:port` of the servers checked for challenge records; empty: the zone's NS records. */
  nameservers: string[];
  propagationTimeoutMs: number;
}

/**
 * Where an order writes its challenge TXT records: the dns actor (role.ts passes its reference; the
 * one writer of the zones), or in tests a `dns_acme` provider itself.
 */
export interface ChallengeRecords {
  /** Adds a challenge value to the TXT values of `name`, keeping the others. */
  addTxt(name: string, value: string): Promise<void>;
  /** Removes exactly that challenge value; absent is not an error. */
  removeTxt(name: string, value: string): Promise<void>;
}

/**
 * A domain's certificate material: its certificate, the chain up to (not including) the root, and
 * the private key, as PEM text (domains/material.ts puts it in canonical form).
 */
export interface Material {
  /** One CERTIFICATE block. */
  cert_pem: string;
  /** Zero or more CERTIFICATE blocks (empty for a self-signed demo certificate). */
  chain_pem: string;
  /** One private key block (PKCS#8 `PRIVATE KEY`, or the SEC1/PKCS#1 forms); empty for an own_key domain, whose key stays on its host. */
  key_pem: string;
}

export interface IssuedMaterial {
  material: Material;
  /** Epoch milliseconds. */
  notBefore: number;
  notAfter: number;
  /** The CA and account that issued it; absent for a demo certificate. */
  ca?: CaIdentity;
}

export interface IssueOptions {
  /** The index in acme.cas of the CA to order from; 0, the first, when absent. */
  ca?: number;
  /**
   * The ARI CertID of the certificate this order renews, with the CA and account it is known to: sent
   * as `replaces` only to that CA and account (and only when the CA offers ARI).
   */
  replaces?: { certId: string; ca: CaIdentity };
  /** The domain's own ACME profile; the CA's profile when absent. */
  profile?: string;
  /** The names the certificate covers beside `name` (`www.app.example.com`, `*.app.example.com`); none when absent. */
  names?: string[];
  /** The host's CSR (PEM) of an own_key domain: ordered for as it is, and no key is made; the material's key_pem is then empty. */
  csr?: string;
}

/** A configured CA and its account URL, when the account is open or account.json names one. */
export interface CaAccountState {
  directoryUrl: string;
  accountUrl: string | null;
}

/** The CA's renewal information for one certificate (RFC 9773; parsed by renewal/ari.ts parseRenewalInfo). */
export type RenewalInfoAnswer =
  | { ok: true; window: { start: number; end: number }; explanationUrl: string | undefined; nextCheckAt: number }
  | { ok: false; reason: string; nextCheckAt: number };

export interface AcmeApi {
  issue(name: string, options?: IssueOptions): Promise<IssuedMaterial>;
  /** The profiles the first CA's directory lists; null when it lists none. */
  profiles(): Promise<OfferedProfiles | null>;
  /**
   * Revokes the certificate at the CA that issued it (`ca`; the first CA when null), with an RFC 5280
   * reason name (revocation.ts); resolves with the CA's answer in words.
   */
  revoke(certPem: string, reason: string, ca?: CaIdentity | null): Promise<string>;
  /** Drops the order left open for `name` at every CA, so that its next order makes a new key (a re-key). */
  forgetOrder(name: string): Promise<void>;
  /**
   * Asks the CA that issued the certificate with this ARI CertID when to renew it; null when its
   * directory offers no renewalInfo; 'unknown' when that CA is not among acme.cas any more or holds
   * another account now (the CertID means nothing to the CA's present account).
   */
  renewalInfo(certId: string, ca: CaIdentity): Promise<RenewalInfoAnswer | null | 'unknown'>;
  /** Each CA of acme.cas with its account URL as far as known without asking the CA. */
  accounts(): Promise<CaAccountState[]>;
}
