// The OpenAPI paths of the operations routes every front has (operations.ts), for each site's
// /api/spec. Written to be valid in OpenAPI 3.0 and 3.1 alike (certhub's document is 3.0).
const json = 'application/json';
const status = (value: string) => ({ type: 'object', required: ['status'], properties: { status: { type: 'string', enum: [value] } } });
const notReady = {
  type: 'object',
  required: ['error', 'reasons'],
  properties: {
    error: { type: 'string' },
    reasons: { type: 'array', items: { type: 'string' }, description: 'one line per actor that is not ready: its name and why (`<role>/<actor>: <reason>`)' },
  },
};

export interface OperationsDocOptions {
  /** The security requirement of /metrics (certhub: the admin key or the metrics token); open when left out. */
  metricsSecurity?: object[];
  /** Extra responses of /metrics (certhub: 401). */
  metricsErrors?: Record<string, object>;
}

export function operationsPaths(options: OperationsDocOptions = {}) {
  return {
    '/healthz': {
      get: {
        operationId: 'healthz',
        summary: 'Liveness: the front thread answers. Never needs credentials.',
        responses: { '200': { description: 'alive', content: { [json]: { schema: status('ok') } } } },
      },
    },
    '/readyz': {
      get: {
        operationId: 'readyz',
        summary: 'Readiness: every actor of the role runs and can work (its store writable). Never needs credentials.',
        responses: {
          '200': { description: 'ready', content: { [json]: { schema: status('ready') } } },
          '503': { description: 'not ready: an actor is starting, restarting or says it cannot work', content: { [json]: { schema: notReady } } },
        },
      },
    },
    '/metrics': {
      get: {
        operationId: 'metrics',
        summary: "The role's figures in the Prometheus text exposition format 0.0.4, as every thread last pushed them.",
        ...(options.metricsSecurity === undefined ? {} : { security: options.metricsSecurity }),
        responses: {
          '200': { description: 'Prometheus text', content: { 'text/plain; version=0.0.4; charset=utf-8': { schema: { type: 'string' } } } },
          '404': {
            description: 'metrics are off in the host config (supervisor.metrics_interval_ms is 0)',
            content: { [json]: { schema: { type: 'object', required: ['error'], properties: { error: { type: 'string' } } } } },
          },
          ...options.metricsErrors,
        },
      },
    },
  };
}
