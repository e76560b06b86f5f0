// The http-front actor: one uWS app in its own thread, serving the one site its config names
// (src/http/site.ts). Roles ask for fronts through front-specs.ts; the thread entry is
// actors/http-front/index.ts, which knows no site.
import { declareActor, type NoApi } from '../actor/kind.js';
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

export const httpFrontActor = declareActor<NoApi, HttpFrontConfig>('http-front', new URL('../../actors/http-front/index.js', import.meta.url));
