// The domains actor: the one owner of certhub's state (domains, tokens, material, preferences). The
// fronts read a replica it publishes (kind.ts) and ask it for every change through DomainsApi.
import type { ActorRef } from '../../../src/actor/kind.js';
import type { KeyType } from '../key-types.js';
import type { AcmeApi } from '../acme/protocol.js';
import type { OfferedProfiles } from '../acme/profiles.js';
import type { DnsApi } from '../dns/protocol.js';
import type { Material } from '../acme/protocol.js';
import type { Prefs } from './prefs-schema.js';
import type { RecordType } from '../dns/protocol.js';
import type { DomainStatus } from './lifecycle.js';
import type { Deployment, HostJudgement, HostView } from '../hosts/deployment.js';
import type { HostReport } from '../hosts/report.js';
import type { HostTokenHolder, HostTokenRecord, HostTokenUse, HostTokenView, IssuedHostToken } from '../hosts/host-tokens.js';
import type { NotifySettings } from '../notify/protocol.js';
import type { ProbeSettings } from '../hosts/probe-settings.js';

export interface DomainsConfig {
  dataDir: string;
  baseDomain: string;
  /** `certhub run --demo`: self-signed demo certificates, nothing contacted. */
  demo: boolean;
  keyType: KeyType;
  /** The actors that publish records and run orders; absent in demo mode. */
  issuers?: { dns: ActorRef<DnsApi>; acme: ActorRef<AcmeApi>; orderTimeoutMs: number };
  /** The CA's limit on new certificates (acme.certificate_budget); absent in demo mode, which counts nothing. */
  budget?: { certificates: number; windowMs: number };
  /** The CA's limits on orders per account and on duplicate certificates (acme.order_budget, acme.duplicate_budget); absent in demo mode. */
  caLimits?: CaLimitSettings;
  /** max_domains: adds past this many domains are refused (409). */
  maxDomains: number;
  /** allow_apex: a domain's names may hold the base domain itself and `*.<base>` (name-set.ts). */
  allowApex: boolean;
  /** acme.retry_backoff_seconds, in ms: the first retry's delay after a failed order (backoff.ts). */
  retryBackoffMs: number;
  /** acme.reuse_csr: an own_key domain's renewal orders with its host's last CSR instead of waiting for the next. */
  reuseCsr?: boolean;
  /** The directory URLs of acme.cas and acme.fallback_after (ca-fallback.ts); absent in demo mode. */
  fallback?: { cas: string[]; fallbackAfter: number };
  /** hosts.stale_margin_seconds and hosts.unserved_after_seconds, in ms: how reporting hosts are judged (../hosts/deployment.ts). */
  hosts: HostJudgement;
  /** `probes`, when enabled (../hosts/prober.ts): certhub probes each reporting host on this schedule. */
  probes?: ProbeSettings;
  /** The channels of `notify`, their secrets read (../notify/settings.ts); absent when none, and in demo mode. */
  notify?: NotifySettings;
}

/** A domain as the admin API shows it. */
export interface DomainView {
  /** Full name: `app.example.com`. */
  name: string;
  label: string;
  target: string;
  record_type: RecordType;
  /** The ACME profile ordered for this domain; null: acme.profile, or the CA's default when that is unset. */
  profile: string | null;
  status: DomainStatus;
  /** Why the last attempt failed, until the next success. */
  error: string | null;
  created_at: string;
  issued_at: string | null;
  expires_at: string | null;
  token: string;
  last_fetch: { at: string; from: string } | null;
  /** When the next attempt is due while the domain waits (backoff, or the CA budget's next slot). */
  next_attempt_at: string | null;
  /** Why next_attempt_at: the backoff after a failure, a refusal's Retry-After (the CA's or the DNS provider's), the CA budget's next slot, or the CA still issuing a finalized order. */
  waiting_for: 'backoff' | 'retry_after' | 'budget' | 'issuance' | null;
  /** When the certificate served is to be renewed, and what chose that instant (the CA's ARI window or the lifetime rule). */
  renewal: { due_at: string | null; basis: 'ari' | 'lifetime' | null };
  /** The ACME directory URL of the CA that issued the certificate served; null before the first certificate, for a demo certificate, or when not known. */
  issued_by: string | null;
  /** The extra names the certificate covers beside `name`, full: `www.app.example.com`, `*.app.example.com`. */
  names: string[];
  /** Whether the wildcards among `names` get the target's address record too. */
  wildcard_records: boolean;
  /** The key is kept on the host: certhub holds none, and orders for the CSR the host sends. */
  own_key: boolean;
  /** The key type and arrival of the host's latest CSR (own_key); null before the first. */
  csr: { key_type: KeyType; received_at: string } | null;
  /** certhub waits for the host's next CSR (own_key): before the first certificate, or a renewal due without acme.reuse_csr. */
  csr_wanted: boolean;
}

/**
 * What the admin event stream says of a domain: what the panel's list shows, and no secret. The rest
 * (token, target, fetches, renewal) is one `GET /api/admin/domains/<name>` away, so a panel that opens
 * on 10,000 domains receives a quarter of the bytes and no token it was not asked to show.
 */
export type DomainSummary = Pick<DomainView, 'name' | 'label' | 'status' | 'error' | 'expires_at' | 'issued_by'> & {
  /** How many hosts report on the domain and how many of them are stale (../hosts/deployment.ts). */
  deployment: Deployment;
};

/** A domain as GET /api/admin/domains lists it: its view and its deployment. */
export type ListedDomain = DomainView & { deployment: Deployment };

/** A domain as GET /api/admin/domains/<name> shows it: also every host that reports on it. */
export type DomainDetail = ListedDomain & { hosts: HostView[] };

/** A change of one domain as the book makes it: its view and the material served to its token. */
export type DomainChange = { type: 'domain'; domain: DomainView; material: Material | null } | { type: 'removed'; name: string };

/**
 * Material as the replica carries it: the chain by reference. Every certificate of one CA carries the
 * same chain, so each thread (the supervisor keeps the latest message of every domain, and each front
 * its replica) holds one copy of it instead of 10,000.
 */
export interface ReplicaMaterial {
  cert_pem: string;
  key_pem: string;
  /** The id of a `chain` message published before this one. */
  chain: string;
}

/** What the fronts keep of each domain: its view and the material served to its token, and the chains. */
export type ReplicaMessage =
  | { type: 'chain'; id: string; chain_pem: string }
  | { type: 'domain'; domain: DomainView; material: ReplicaMaterial | null }
  | { type: 'removed'; name: string }
  /** The tokens of `name` that were rotated away or removed with it (retired-tokens.ts), as digests; the whole list each time. */
  | { type: 'retired'; name: string; tokens: RetiredToken[] }
  /** The hosts that report on `name` (../hosts/), each judged, and their sum; the whole list each time. */
  | { type: 'hosts'; name: string; hosts: HostView[]; deployment: Deployment }
  /** The host tokens issued under `name` (../hosts/host-tokens.ts), as digests; the whole list each time. */
  | { type: 'host-tokens'; name: string; tokens: HostTokenRecord[] }
  /**
   * The book as the actor loaded it has been published (sent after it once per run, and kept, so a
   * thread that subscribes later also gets it after the domains): a front listens only once it has
   * this, or a read just after a restart would miss a domain whose message had not arrived yet.
   */
  | { type: 'loaded' };

export interface FetchRecord {
  name: string;
  from: string;
  /** Epoch milliseconds. */
  at: number;
}

export interface NewDomainInput {
  /** The label (`app`) or the full name (`app.example.com`). */
  name: string;
  target: string;
  /** Let certhub manage (replace, and delete with the domain) address records at the name it did not create; without it they are refused with 409. */
  adopt?: boolean;
  /** The ACME profile to order (one the CA's directory lists); absent or null: acme.profile. */
  profile?: string | null;
  /** The extra names one certificate covers with `name` (name-set.ts): relative (`www.app`, `*.app`, `a.b`, `@`) or full. */
  names?: string[];
  /** Whether wildcards among `names` get the target's address record too; default false. */
  wildcard_records?: boolean;
  /** The key stays on the host: certhub makes none and orders for the CSR the host sends. */
  own_key?: boolean;
}

export interface DomainsApi {
  add(input: NewDomainInput): Promise<DomainView>;
  /**
   * `name` is a label or a full name. Address records at the name that certhub did not create refuse
   * the change (409 naming them) unless `adopt` makes them certhub's, as for an add.
   */
  setTarget(name: string, target: string, adopt?: boolean): Promise<DomainView>;
  /** The ACME profile of the domain's next orders (renewals included); null: acme.profile. Checked against the CA's list. */
  setProfile(name: string, profile: string | null): Promise<DomainView>;
  /**
   * The domain's extra names (and whether its wildcards get address records): checked as an add checks
   * them, records written for the names added and removed for those dropped, and a certificate for the
   * new set ordered at once when the domain has one.
   */
  setNames(name: string, names: string[], wildcardRecords?: boolean): Promise<DomainView>;
  /** Marks the domain own_key (its key kept on its host) or takes the mark off. */
  setOwnKey(name: string, ownKey: boolean): Promise<DomainView>;
  /** An own_key domain's CSR (PEM) from its host: checked, kept, and ordered for when needed (400 when it does not fit, 409 when the domain is not own_key). */
  submitCsr(name: string, csrPem: string): Promise<DomainView>;
  remove(name: string): Promise<void>;
  /** The ACME profiles the CA's directory lists; null when it lists none, and in demo mode. */
  caProfiles(): Promise<OfferedProfiles | null>;
  /** A new token; the old one is dead once this resolves (the replica changed first). */
  rotate(name: string): Promise<DomainView>;
  /** A domain in error tries again now (409 in any other state). */
  retry(name: string): Promise<DomainView>;
  /** An issued domain is renewed now (409 in any other state). */
  renew(name: string): Promise<DomainView>;
  /** An issued domain is renewed now with a new key (409 in any other state). */
  rekey(name: string): Promise<DomainView>;
  /** An issued domain's certificate is revoked at the CA with an RFC 5280 reason name, and renewed now. */
  revoke(name: string, reason: string): Promise<Revoked>;
  /** Clients fetched these domains' material: the latest fetch of each, when and from which address. */
  recordFetches(fetches: FetchRecord[]): Promise<void>;
  /**
   * A host's report on a domain, from `address`: the domain's deployment with it. Given with a host
   * token (`holder`), the report is that token's host's, whatever host name it carries.
   */
  reportHost(name: string, report: HostReport, address: string, holder?: HostTokenHolder): Promise<Deployment>;
  /** The operator removes a host that reports on a domain. */
  removeHost(name: string, id: string): Promise<void>;
  /** A token for one host under the domain `name` (a full name); the answer is the only place it is shown. */
  issueHostToken(name: string, host: string): Promise<IssuedHostToken>;
  /** Revokes the domain's host token `id`: that host's next request is refused, the other tokens work on. */
  revokeHostToken(name: string, id: string): Promise<HostTokenView>;
  /** Requests made with host tokens, as the fronts saw them: each token's last use. */
  recordHostTokenUses(uses: HostTokenUse[]): Promise<void>;
  prefs(): Promise<Prefs>;
  updatePrefs(update: unknown): Promise<Prefs>;
}

/** A token certhub rotated away, whose domain it removed, or a host token the admin revoked: its SHA-256, never the token (retired-tokens.ts keeps them). */
export interface RetiredToken {
  /** The domain's full name. */
  name: string;
  /** Hex SHA-256 of the token. */
  sha256: string;
  reason: 'rotated' | 'removed' | 'revoked';
  /** ISO date-time of the rotation, removal or revocation. */
  retired_at: string;
  /** A host token's host name. */
  host?: string;
}

/** The CA's limits certhub counts before it orders (ca-limits.ts). */
export interface CaLimitSettings {
  /** Orders per account per `ordersWindowMs`. */
  orders: number;
  ordersWindowMs: number;
  /** Certificates per exact set of names (one name here) per `duplicatesWindowMs`. */
  duplicates: number;
  duplicatesWindowMs: number;
}

/** A revocation's answer: the domain as it is now, and what the CA said. */
export interface Revoked {
  domain: DomainView;
  /** What the CA answered, in words. */
  ca_answer: string;
}
