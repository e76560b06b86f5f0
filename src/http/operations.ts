// What every front serves for the people who run it: /healthz (the thread answers), /readyz (every
// actor of the role runs and says it can work) and /metrics (the role's figures, src/metrics/).
// The readiness and the figures are pushed here by the supervisor and the role's threads, so none of
// the three asks another thread anything.
import type { ActorContext } from '../actor/actor.js';
import { readinessTopic, type RoleReadiness } from '../actor/actor-status.js';
import { RoleMetrics } from '../metrics/role-metrics.js';
import type { AuthScheme } from './auth.js';
import type { RateLimitRule } from './rate-limit.js';
import { jsonType } from './reply.js';
import type { Router } from './router.js';

/** Who may read /metrics, and how failed attempts are limited: the same rule as the site's other credentials. */
export interface MetricsAccess {
  auth: AuthScheme<unknown>;
  /** A `failures` rule, so a wrong token is a guess counted like any other. */
  rateLimit?: RateLimitRule;
}

export interface OperationsOptions {
  /** Who may read /metrics; open to every client that reaches the port when left out. */
  metricsAccess?: MetricsAccess;
}

const noStore = { 'Content-Type': jsonType, 'Cache-Control': 'no-store' };
const waiting: RoleReadiness = { ready: false, reasons: ['waiting for the supervisor'] };

export function mountOperations(router: Router, context: Pick<ActorContext<unknown>, 'role' | 'subscribe' | 'metrics'>, options: OperationsOptions = {}): void {
  let readiness = waiting;
  context.subscribe(readinessTopic(context.role), (latest) => (readiness = latest));
  router
    .get('/healthz', (_request, reply) => reply.send(200, '{"status":"ok"}', noStore))
    .get('/readyz', (_request, reply) => {
      if (readiness.ready) reply.send(200, '{"status":"ready"}', noStore);
      else reply.send(503, JSON.stringify({ error: `not ready: ${readiness.reasons.join('; ')}`, reasons: readiness.reasons }), noStore);
    });
  if (!context.metrics.enabled) {
    router.get('/metrics', (_request, reply) =>
      reply.send(404, '{"error":"metrics are off in this host config (supervisor.metrics_interval_ms is 0)"}', noStore),
    );
    return;
  }
  const metrics = new RoleMetrics(context);
  const access = options.metricsAccess;
  const routes =
    access === undefined ? router : router.group({ auth: access.auth, ...(access.rateLimit === undefined ? {} : { rateLimit: access.rateLimit }) });
  routes.get('/metrics', async (_request, reply) => {
    const { text, contentType } = await metrics.render();
    reply.send(200, text, { 'Content-Type': contentType, 'Cache-Control': 'no-store' });
  });
}
