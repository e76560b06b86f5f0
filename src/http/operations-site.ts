// A site with no routes of its own, for a front that serves only what every front serves to the
// people who run it (/healthz, /readyz, /metrics: operations.ts): the proxy's metrics listener (its
// TLS port answers routed names only) and the send role's (it has no HTTP of its own otherwise).
// The front thread loads this module by URL (operations-site-kind.ts declares it).
import type { SiteDefinition } from './site.js';

/** The site takes no settings: the routes are the front's own. */
export type OperationsOnlySite = Record<never, never>;

export const site: SiteDefinition<OperationsOnlySite> = { cors: false, logsRequests: () => false, mount: async () => {} };
