// A site is what one front serves, plugged in by its role: the role's site/ folder holds the site's
// config type (protocol.ts), its definition (site.ts, exporting `site`) and a declaration (kind.ts)
// naming where that module is. The front thread imports only the module its config names, so it has
// no list of sites and loads nothing another role needs. State (rate limiters, sessions, replicas)
// is made in `mount`, once per front, never at module level.
import type { ActorContext } from '../actor/actor.js';
import type { Logger } from '../log/record.js';
import type { MetricsAccess } from './operations.js';
import type { Router } from './router.js';
import type { HttpServer } from './server.js';
import type { HttpFrontConfig } from './front-config.js';

declare const configType: unique symbol;

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
  /** Who may read the front's /metrics, and the limit on failed tries (made per front, logging to `log`); open to whoever reaches the port when left out. */
  metricsAccess?(site: Config, log: Logger): MetricsAccess;
  /** Adds the site's routes. */
  mount(mount: SiteMount<Config>): Promise<void>;
}

/** Where a site's definition lives and the config it takes; made once, in the site's kind.ts. */
export interface SiteKind<Config> {
  /** For messages: `certhub`, `qpool`. */
  readonly kind: string;
  /** The compiled module exporting `site: SiteDefinition<Config>`. */
  readonly entry: URL;
  readonly [configType]?: Config;
}

/** The site a front serves, as plain data in the front's config. */
export interface SiteRef {
  kind: string;
  entry: string;
  config: unknown;
}

export function declareSite<Config>(kind: string, entry: URL): SiteKind<Config> {
  return { kind, entry };
}

/** The site part of a front config, typed by the site's declaration. */
export function siteRef<Config>(kind: SiteKind<Config>, config: Config): SiteRef {
  return { kind: kind.kind, entry: kind.entry.href, config };
}

/** The definition a front's config names. */
export async function loadSite(ref: SiteRef): Promise<SiteDefinition<unknown>> {
  const module = (await import(ref.entry)) as { site?: SiteDefinition<unknown> };
  if (module.site === undefined) throw new Error(`${ref.entry} exports no site (site ${ref.kind})`);
  return module.site;
}
