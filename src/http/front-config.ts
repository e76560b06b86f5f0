// What an http-front actor is handed: where to listen and the one site it serves (site.ts). The actor
// kind, its thread entry and the specs a role asks for are under actors/http-front/, which knows no site.
import type { SiteRef } from './site.js';
import type { FrontTls } from './tls-material.js';

export interface HttpFrontConfig {
  host: string;
  port: number;
  site: SiteRef;
  /** The role's `allowed_hosts`: Host names answered besides loopback ones (src/http/allowed-hosts.ts). */
  allowedHosts?: readonly string[];
  /** Check the Host on any bind, answering off loopback this machine's own names and addresses besides `allowedHosts`. */
  hostCheckEveryBind?: boolean;
  /** HTTPS with this certificate; plain HTTP without. */
  tls?: FrontTls;
}
