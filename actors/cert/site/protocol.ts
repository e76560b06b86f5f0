// certhub's site config; the domain shapes it serves are in actors/cert/domains/protocol.ts.
import type { ActorRef } from '../../../src/actor/kind.js';
import type { AuditApi } from '../audit/protocol.js';
import type { DomainsApi } from '../domains/protocol.js';

export interface CerthubSite {
  domains: ActorRef<DomainsApi>;
  /** The writer of audit.jsonl (../audit/). */
  audit: ActorRef<AuditApi>;
  baseDomain: string;
  /** The admin key: bearer token for scripts, and what the panel's login asks for. */
  adminKey: string;
  /** A bearer token for /metrics alone (config.json `metrics_token`); the admin key reads it too. */
  metricsToken?: string;
  /** Session cookies carry `Secure` (false only for plain HTTP, where browsers would drop them). */
  secureCookies: boolean;
  demo: boolean;
  /** The fingerprint of the self-signed certificate served for want of a `tls` (exports carry it). */
  pin?: string;
  /** Addresses whose `X-Forwarded-For` gives the client's address (config `trusted_proxies`). */
  trustedProxies: string[];
  /** Plain HTTP off loopback (`insecure_http`): the panel says so in red. */
  insecureHttp: boolean;
  /** What certhub's own HTTPS (config `tls`) follows; absent: no `tls`. */
  tls?: CerthubTls;
  /** The CA (acme.directory_url, acme.profile); absent in demo mode, which has none. */
  ca?: { directoryUrl: string; profile?: string };
}

/** What certhub's HTTPS certificate follows after start (actors/cert/tls.ts). */
export interface CerthubTls {
  follow: { domain: string } | { certFile: string; keyFile: string };
  /** Serving a self-signed stand-in until `follow.domain` is issued. */
  temporary: boolean;
}

/** The api_version of GET /api/version (src/http/version-route.ts): raised on an incompatible change of this API. */
export const certhubApiVersion = 1;

/** GET /api/admin/session: asked before login, so the login dialog already says when it is a demo. */
export interface CerthubSessionAnswer {
  /** The request's session cookie holds a live panel session. */
  active: boolean;
  /** `--demo` (or `outpost demo`): self-signed certificates, no DNS provider or CA contacted. */
  demo: boolean;
}

/** GET /api/admin/server: how the panel is served, for its header and its exports. */
export interface CerthubServerInfo {
  /** `sha256:...` of the self-signed certificate served; null with a `tls` or over plain HTTP. */
  pin: string | null;
  /** Plain HTTP although bound off loopback. */
  insecure_http: boolean;
}

/** GET /api/admin/ca: the CA certhub orders from, for the panel's profile fields. */
export interface CerthubCaInfo {
  /** acme.directory_url; null in demo mode. */
  directory_url: string | null;
  /** The profiles the CA's directory lists (name -> description); null when it lists none, and in demo mode. */
  profiles: Record<string, string> | null;
  /** acme.profile: ordered for a domain that names none; null: the CA's default. */
  default_profile: string | null;
}

/** GET /api/cert/<domain> */
export interface CertificateResponse {
  cert_pem: string;
  chain_pem: string;
  /** Absent for an own_key domain: its key stays on its host. */
  key_pem?: string;
  /** ISO 8601, UTC. */
  expires_at: string;
  /** own_key domains only: certhub waits for the host's next CSR. */
  csr_wanted?: boolean;
}

/** GET /api/cert/<domain>/csr: the CSR an own_key domain's host is to send. */
export interface CsrRequest {
  domain: string;
  /** The names the CSR must hold, exactly: the domain's own name first, then its other names. */
  names: string[];
  csr_wanted: boolean;
}

/** POST /api/cert/<domain>/csr */
export interface CsrAnswer {
  domain: string;
  status: string;
  csr_wanted: boolean;
}
