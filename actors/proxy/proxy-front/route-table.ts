// The routes a front thread serves, replaceable while it runs (a reload: SIGHUP). A request looks its
// route up when it arrives, so connections already open take the new backend at their next request;
// a request in flight keeps the route it started with, and a backend pool that is no longer used
// finishes its queue and in-flight exchanges before its connections close.
import type { Logger } from '../../../src/log/record.js';
import type { ProxyFigures } from './figures.js';
import type { Route } from './forward.js';
import type { ProxyLimits, ProxyRoute } from './protocol.js';
import { Upstream } from './upstream.js';

export interface RouteTableOptions {
  backendConnections: number;
  backendTimeoutMs: number;
  limits: ProxyLimits;
  figures?: ProxyFigures;
  /** Canonical addresses whose X-Forwarded-For and X-Real-IP are passed on. */
  trustedProxies: ReadonlySet<string>;
  log: Logger;
}

export interface RouteChanges {
  added: string[];
  removed: string[];
  /** Same name, other backends or settings, or another HSTS value. */
  changed: string[];
}

export class RouteTable {
  private readonly routes = new Map<string, Route>();

  constructor(
    private readonly options: RouteTableOptions,
    initial: readonly ProxyRoute[],
  ) {
    for (const route of initial) this.routes.set(route.domain, this.route(route));
  }

  get(domain: string): Route | undefined {
    return this.routes.get(domain);
  }

  has(domain: string): boolean {
    return this.routes.has(domain);
  }

  get domains(): string[] {
    return [...this.routes.keys()];
  }

  /** Serves `next` from the next request on. */
  replace(next: readonly ProxyRoute[]): RouteChanges {
    const changes: RouteChanges = { added: [], removed: [], changed: [] };
    const wanted = new Map(next.map((route) => [route.domain, route]));
    for (const [domain, route] of this.routes) {
      if (wanted.has(domain)) continue;
      this.routes.delete(domain);
      route.upstream.retire();
      this.options.figures?.forget(domain);
      changes.removed.push(domain);
    }
    for (const [domain, wantedRoute] of wanted) {
      const current = this.routes.get(domain);
      if (current === undefined) {
        this.routes.set(domain, this.route(wantedRoute));
        changes.added.push(domain);
      } else if (current.upstreamKey !== upstreamKey(wantedRoute)) {
        current.upstream.retire();
        this.routes.set(domain, this.route(wantedRoute));
        changes.changed.push(domain);
      } else if (current.hsts !== wantedRoute.hsts) {
        this.routes.set(domain, this.route(wantedRoute, current.upstream));
        changes.changed.push(domain);
      }
    }
    return changes;
  }

  close(): void {
    for (const { upstream } of this.routes.values()) upstream.close();
  }

  private route(route: ProxyRoute, upstream?: Upstream): Route {
    const { figures, limits, log } = this.options;
    const { domain, hsts } = route;
    return {
      domain,
      ...(hsts === undefined ? {} : { hsts }),
      uploadFloor: limits.uploadFloor,
      trustedProxies: this.options.trustedProxies,
      ...(figures === undefined ? {} : { figures: figures.route(domain) }),
      upstreamKey: upstreamKey(route),
      // Response bodies may pause for as long as the client reads slowly, so only the head is timed.
      upstream:
        upstream ??
        new Upstream({
          domain,
          backends: route.backends,
          settings: route.upstream,
          connections: this.options.backendConnections,
          headersTimeoutMs: this.options.backendTimeoutMs,
          maxQueued: limits.backendQueue,
          log,
        }),
    };
  }
}

/** What makes two versions of a route need new backend connections: its backends and how they are used. */
function upstreamKey(route: ProxyRoute): string {
  return JSON.stringify([route.backends, route.upstream]);
}
