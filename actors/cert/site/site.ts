// certhub's HTTP site: the admin panel at `/` (../ui/), the public API (a domain's material for
// its token), the admin API, and the replica of the domains actor's state that both read from.
import { domainReplicaTopic } from '../domains/kind.js';
import { safeEqual } from '../../../src/crypto/constant-time.js';
import type { MetricsAccess } from '../../../src/http/operations.js';
import { RateLimiter } from '../../../src/http/rate-limit.js';
import type { Logger } from '../../../src/log/record.js';
import { serveStatic } from '../../../src/http/static.js';
import type { SiteDefinition, SiteMount } from '../../../src/http/site.js';
import { roleUiAssets } from '../../../src/http/ui-assets.js';
import { AuditRecorder } from '../audit/recorder.js';
import { certFigures } from './cert-metrics.js';
import { mountAdminRoutes } from './admin-routes.js';
import { ClientAddresses } from './client-addresses.js';
import { FetchCounts } from './fetch-counts.js';
import { mountPublicRoutes } from './public-routes.js';
import type { CerthubSite } from './protocol.js';
import { DomainReplica } from './replica.js';
import { followTlsCertificate } from './tls-follow.js';

// Tokens and the admin key are read here: no `Access-Control-Allow-Origin: *` on any route.
export const site: SiteDefinition<CerthubSite> = { cors: false, logsRequests: () => false, metricsAccess: metricsReaders, mount: mountCerthubSite };

/** The line a wrong token on /metrics writes, in the shape of the failed logins and fetches (docs/certhub.md, fail2ban). */
export const failedMetricsReadMessage = 'certhub: failed metrics read';
/** Wrong tokens a client may send to /metrics: the admin key reads it too, so as many as wrong logins. */
const failedMetricsReadLimit = { limit: 10, windowMs: 300_000 };

/**
 * /metrics names every domain (expiry, fetches): the admin key reads it, and so does `metrics_token`,
 * a token that reads nothing else, for a Prometheus whose config more people see than certhub's.
 * Wrong tokens are failures like wrong keys: limited per client and logged (the client, never the token).
 */
function metricsReaders(site: CerthubSite, log: Logger): MetricsAccess {
  const { adminKey, metricsToken } = site;
  const clients = new ClientAddresses(site.trustedProxies);
  return {
    auth: {
      bearer: (token, request) => {
        // Both comparisons always run: which of the two secrets matched does not show in the time taken.
        const admin = safeEqual(token, adminKey);
        const metrics = metricsToken !== undefined && safeEqual(token, metricsToken);
        if (admin || metrics) return true;
        log.warn(failedMetricsReadMessage, { client: clients.of(request) });
        return undefined;
      },
    },
    rateLimit: clients.failureRule(new RateLimiter(failedMetricsReadLimit), log, 'failed metrics reads'),
  };
}

async function mountCerthubSite({ router, server, actor, site }: SiteMount<CerthubSite>): Promise<void> {
  const ownDomain = site.tls !== undefined && 'domain' in site.tls.follow ? site.tls.follow.domain : undefined;
  const replica = new DomainReplica(site.baseDomain, ownDomain);
  actor.subscribe(domainReplicaTopic, (message) => replica.apply(message));
  const fetches = new FetchCounts();
  if (actor.metrics.enabled) actor.metrics.addSource(certFigures(replica, fetches));
  const domains = actor.peer(site.domains);
  const clients = new ClientAddresses(site.trustedProxies);
  const audit = new AuditRecorder(actor.peer(site.audit), actor.log);
  mountPublicRoutes({ router, replica, domains, clients, log: actor.log, fetchCounts: fetches, audit });
  mountAdminRoutes({ router, server, actor, site, replica, domains, clients, audit });
  if (site.tls !== undefined) followTlsCertificate(site.tls, server, replica, actor);
  serveStatic(router, await roleUiAssets('cert'));
  // The front listens (and the URL is printed) once the domains are here: the domains actor sends a
  // thread that subscribes late its state through the supervisor, a few hops after this mount, and a
  // read in between answered 404 for a domain on disk (kill-actors, just after a restart).
  await replica.loaded;
}
