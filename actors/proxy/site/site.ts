// The proxy's operations listener (metrics_port): a generic front that serves what every front serves
// for the people who run it (/healthz, /readyz, /metrics: src/http/operations.ts) and nothing else.
// The proxy's TLS listener cannot carry them: it answers routed names only, each for its backend.
import type { SiteDefinition } from '../../../src/http/site.js';

/** The site takes no settings: the routes are the front's own. */
export type ProxyOperationsSite = Record<never, never>;

export const site: SiteDefinition<ProxyOperationsSite> = { cors: false, logsRequests: () => false, mount: async () => {} };
