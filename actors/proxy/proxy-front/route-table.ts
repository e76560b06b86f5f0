// The routes a front thread serves, replaceable while it runs (a reload: SIGHUP). A request looks its
// route up when it arrives, so connections already open take the new backend at their next request;
// a request in flight keeps the route it started with, and a backend pool that is no longer used
// finishes its queue and in-flight exchanges before its connections close.
import { BackendPool } from './backend-pool.js';
import type { ProxyFigures } from './figures.js';
import type { Route } from './forward.js';
import { backendAddress } from './logic.js';
import type { ProxyLimits, ProxyRoute } from './protocol.js';

export interface RouteTableOptions {
  backendConnections: number;
  backendTimeoutMs: number;
  limits: ProxyLimits;
  figures?: ProxyFigures;
  /** Canonical addresses whose X-Forwarded-For and X-Real-IP are passed on. */
  trustedProxies: ReadonlySet<string>;
}

export interface RouteChanges {
  added: string[];
  removed: string[];
  /** Same name, another backend or HSTS value. */
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
      route.pool.retire();
      this.options.figures?.forget(domain);
      changes.removed.push(domain);
    }
    for (const [domain, wantedRoute] of wanted) {
      const current = this.routes.get(domain);
      if (current === undefined) {
        this.routes.set(domain, this.route(wantedRoute));
        changes.added.push(domain);
      } else if (current.backend !== wantedRoute.backend) {
        current.pool.retire();
        this.routes.set(domain, this.route(wantedRoute));
        changes.changed.push(domain);
      } else if (current.hsts !== wantedRoute.hsts) {
        this.routes.set(domain, this.route(wantedRoute, current.pool));
        changes.changed.push(domain);
      }
    }
    return changes;
  }

  close(): void {
    for (const { pool } of this.routes.values()) pool.close();
  }

  private route({ domain, backend, hsts }: ProxyRoute, pool?: BackendPool): Route {
    const { figures, limits } = this.options;
    return {
      domain,
      backend,
      ...(hsts === undefined ? {} : { hsts }),
      uploadFloor: limits.uploadFloor,
      trustedProxies: this.options.trustedProxies,
      ...(figures === undefined ? {} : { figures: figures.route(domain) }),
      // Response bodies may pause for as long as the client reads slowly, so only the head is timed.
      pool: pool ?? new BackendPool({ ...backendAddress(backend), connections: this.options.backendConnections, headersTimeoutMs: this.options.backendTimeoutMs, maxQueued: limits.backendQueue }),
    };
  }
}
