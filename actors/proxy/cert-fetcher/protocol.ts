// The cert-fetcher actor of the proxy role: certhub-agent's fetch watch loop (actors/proxy/client/
// watch.ts) for every route of the proxy, writing the material where the fronts read it and telling
// each front at once when a domain's material changed.
import type { ActorRef } from '../../../src/actor/kind.js';
import type { KeyType } from '../../../src/crypto/key-types.js';
import type { ProxyFrontApi } from '../proxy-front/protocol.js';

/** A route's domain and the token that fetches its material. */
export interface FetchRoute {
  domain: string;
  token: string;
}

export interface CertFetcherConfig {
  /** The certhub servers' URLs, in the order they are tried (client/certhub-servers.ts). */
  servers: string[];
  /** Each route's domain and the token that fetches its material. */
  routes: FetchRoute[];
  /** Where the material goes (`<materialDir>/<domain>/…`) and the fronts read it. */
  materialDir: string;
  intervalMs: number;
  /** A private CA (PEM file) trusted for the server besides the system's roots. */
  caFile?: string;
  /** `sha256:<hex>` of certhub's own certificate: trusted instead of any CA. */
  pin?: string;
  /** The CAs (PEM file) the material may chain to besides the system's roots. */
  caBundleFile?: string;
  /** Material whose chain leads to no trusted root is written too (certhub --demo). */
  allowUntrusted: boolean;
  /** own_key: the routes' keys are made and kept here, of this type, and certhub is sent CSRs (client/own-key.ts). */
  ownKeyType?: KeyType;
  fronts: ActorRef<ProxyFrontApi>[];
  /** The name this host reports to certhub with (host_name); os.hostname() when absent. */
  hostName?: string;
  /** The port the fronts serve on, reported to certhub for its probes. */
  servePort: number;
}

export type CertFetcherApi = Record<never, never>;
