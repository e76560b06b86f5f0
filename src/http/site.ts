// A site is what one front serves: a folder under sites/ with its config type (protocol.ts) and its
// mount (site.ts), registered by kind in sites.ts. The front entry knows no site.
import type { ActorContext } from '../actor/actor.js';
import type { AuthScheme } from './auth.js';
import type { Router } from './router.js';
import type { HttpServer } from './server.js';
import type { HttpFrontConfig } from './front-config.js';

export interface SiteMount<Config> {
  router: Router;
  server: HttpServer;
  /** The front's actor context: peers, events, logs. */
  actor: ActorContext<HttpFrontConfig>;
  site: Config;
}

export interface SiteDefinition<Config> {
  /**
   * Whether the site's API answers `Access-Control-Allow-Origin: *`: only for APIs that neither read
   * a credential nor hand out secrets to whoever asks.
   */
  cors: boolean;
  /** Whether the front logs one line per request. */
  logsRequests(site: Config): boolean;
  /** Who may read the front's /metrics; open to whoever reaches the port when left out. */
  metricsAuth?(site: Config): AuthScheme<unknown>;
  /** Adds the site's routes. */
  mount(mount: SiteMount<Config>): Promise<void>;
}
