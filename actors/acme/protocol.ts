// The acme actor: holds the ACME account and runs DNS-01 orders, writing challenge records through
// the ACME DNS provider (dns_acme) and checking them at the authoritative nameservers first.
import type { KeyType } from '../../src/config/key-types.js';
import type { DnsProviderConfig } from '../dns/providers/config.js';
import type { Material } from '../domains/material.js';

export interface AcmeConfig {
  /** The account lives in `<dataDir>/acme/`. */
  dataDir: string;
  directoryUrl: string;
  email?: string;
  /** Path of extra CA certificates trusted for the CA's HTTPS. */
  caBundleFile?: string;
  keyType: KeyType;
  challenges: DnsProviderConfig;
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

export interface AcmeApi {
  issue(name: string): Promise<IssuedMaterial>;
}
