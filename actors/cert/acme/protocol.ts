// The acme actor: holds the ACME account and runs DNS-01 orders, writing challenge records through
// the dns actor (its dns_acme provider) and checking them at the authoritative nameservers first.
import type { ActorRef } from '../../../src/actor/kind.js';
import type { KeyType } from '../key-types.js';
import type { OfferedProfiles } from './profiles.js';

export interface AcmeConfig {
  /** The account lives in `<dataDir>/acme/`. */
  dataDir: string;
  directoryUrl: string;
  email?: string;
  /** Path of extra CA certificates trusted for the CA's HTTPS. */
  caBundleFile?: string;
  keyType: KeyType;
  /** acme.eab (eab.ts checks it): sent when the account is registered. */
  eab?: { kid: string; hmac_key: string };
  /** acme.accept_terms: the CA's terms of service are agreed to when the account is registered. */
  acceptTerms: boolean;
  /** acme.profile: ordered for a domain that names no profile of its own. */
  profile?: string;
  /** acme.preferred_chain: the issuer common name the chain should end with. */
  preferredChain?: string;
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
  /** One private key block (PKCS#8 `PRIVATE KEY`, or the SEC1/PKCS#1 forms). */
  key_pem: string;
}

export interface IssuedMaterial {
  material: Material;
  /** Epoch milliseconds. */
  notBefore: number;
  notAfter: number;
}

/** The CA's renewal information for one certificate (RFC 9773; parsed by renewal/ari.ts parseRenewalInfo). */
export type RenewalInfoAnswer =
  | { ok: true; window: { start: number; end: number }; explanationUrl: string | undefined; nextCheckAt: number }
  | { ok: false; reason: string; nextCheckAt: number };

export interface AcmeApi {
  /**
   * `replaces`: the ARI CertID of the certificate this order renews (sent only to a CA offering ARI).
   * `profile`: the domain's own ACME profile; acme.profile when absent.
   */
  issue(name: string, replaces?: string, profile?: string): Promise<IssuedMaterial>;
  /** The profiles the CA's directory lists; null when it lists none. */
  profiles(): Promise<OfferedProfiles | null>;
  /** Revokes the certificate at the CA (reason: an RFC 5280 name, revocation.ts); resolves with the CA's answer in words. */
  revoke(certPem: string, reason: string): Promise<string>;
  /** Drops the order left open for `name`, so that its next order makes a new key (a re-key). */
  forgetOrder(name: string): Promise<void>;
  /** Asks the CA when to renew the certificate with this ARI CertID; null when its directory offers no renewalInfo. */
  renewalInfo(certId: string): Promise<RenewalInfoAnswer | null>;
}
