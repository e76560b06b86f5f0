// The acme actor: holds the ACME account and runs DNS-01 orders, writing challenge records through
// the dns actor (its dns_acme provider) and checking them at the authoritative nameservers first.
import type { ActorRef } from '../../../src/actor/kind.js';
import type { KeyType } from '../key-types.js';
import type { DnsApi } from '../dns/protocol.js';
import type { Material } from '../domains/material.js';

export interface AcmeConfig {
  /** The account lives in `<dataDir>/acme/`. */
  dataDir: string;
  directoryUrl: string;
  email?: string;
  /** Path of extra CA certificates trusted for the CA's HTTPS. */
  caBundleFile?: string;
  keyType: KeyType;
  /** Writes the challenge records: the one writer of the zones. */
  dns: ActorRef<DnsApi>;
  /** `host:port` of the servers checked for challenge records; empty: the zone's NS records. */
  nameservers: string[];
  propagationTimeoutMs: number;
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
  /** `replaces`: the ARI CertID of the certificate this order renews (sent only to a CA offering ARI). */
  issue(name: string, replaces?: string): Promise<IssuedMaterial>;
  /** Asks the CA when to renew the certificate with this ARI CertID; null when its directory offers no renewalInfo. */
  renewalInfo(certId: string): Promise<RenewalInfoAnswer | null>;
}
