// qpool's HTTP site: one value per request from the pool actor. Requests that arrive in the same
// turn go to the pool as one take (one message, one disk commit); /api/status and the rest are light.
//
// No CORS on this site: the API has no authentication, and `Access-Control-Allow-Origin: *` would let
// any web page a user opens read values from a pool on their loopback.
import type { ActorContext } from '../../../src/actor/actor.js';
import { batched } from '../../../src/actor/batch.js';
import { jsonType, textType, type Reply } from '../../../src/http/reply.js';
import type { Router } from '../../../src/http/router.js';
import { serveStatic } from '../../../src/http/static.js';
import { version } from '../../../src/version.js';
import type { PoolApi, TakeResult, TakenValue } from '../../pool/protocol.js';
import type { HttpFrontConfig, QpoolSite } from '../protocol.js';
import { qpoolHelpText } from './qpool-help.js';
import { qpoolOpenApi } from './qpool-openapi.js';
import { roleUiAssets } from './ui-assets.js';

type ValueFormat = 'json' | 'hex' | 'base64' | 'binary';

const noStore = { 'Cache-Control': 'no-store' } as const;
/** Seconds a client should wait after a 503: values arrive in batches, rarely within seconds. */
const retryAfterSeconds = '30';

export async function mountQpoolSite(router: Router, context: ActorContext<HttpFrontConfig>, site: QpoolSite): Promise<void> {
  const pool = context.peer<PoolApi>(site.pool);
  const take = batched<null, TakeResult>((requests) => pool.call((api) => api.take(requests.length)));
  const statusHeaders = { 'Content-Type': jsonType, ...noStore, ...(site.demo ? { 'X-Quantum-Demo': '1' } : {}) };
  const openApi = JSON.stringify(qpoolOpenApi(version));
  const help = qpoolHelpText(version);
  const versionJson = JSON.stringify({ product: 'qpool', version });

  const serveValue = (format: ValueFormat) => async (_request: unknown, reply: Reply) => {
    let result: TakeResult;
    try {
      result = await take(null);
    } catch (error) {
      context.log.warn('the pool did not answer', { error: String(error) });
      result = { type: 'unavailable', message: 'pool unavailable' };
    }
    if (result.type === 'value') answerValue(reply, format, result.value);
    else answerUnavailable(reply, format, result.type === 'empty' ? 'pool empty' : result.message);
  };

  serveStatic(router, await roleUiAssets('qpool'));
  router
    .get('/api/random', serveValue('json'))
    .get('/api/random/hex', serveValue('hex'))
    .get('/api/random/base64', serveValue('base64'))
    .get('/api/random/binary', serveValue('binary'))
    .get('/api/status', async (_request, reply) => {
      reply.send(200, JSON.stringify(await pool.call((api) => api.status())), statusHeaders);
    })
    .get('/api/version', (_request, reply) => reply.send(200, versionJson, { 'Content-Type': jsonType }))
    .get('/api/spec', (_request, reply) => reply.send(200, openApi, { 'Content-Type': jsonType }))
    .get('/api/help', (_request, reply) => reply.send(200, help, { 'Content-Type': textType }));
}

function answerValue(reply: Reply, format: ValueFormat, { record, available }: TakenValue): void {
  const headers = {
    ...noStore,
    'X-Quantum-Timestamp': record.timestamp,
    'X-Quantum-Source': record.source,
    'X-Quantum-Bits': '1024',
    'X-Quantum-Format': format,
    'X-Quantum-Available': String(available),
  };
  switch (format) {
    case 'json':
      reply.send(200, JSON.stringify(record), { 'Content-Type': jsonType, ...headers });
      break;
    case 'hex':
      reply.send(200, `${record.value}\n`, { 'Content-Type': textType, ...headers });
      break;
    case 'base64':
      reply.send(200, `${Buffer.from(record.value, 'hex').toString('base64')}\n`, { 'Content-Type': textType, ...headers });
      break;
    case 'binary':
      reply.send(200, Buffer.from(record.value, 'hex'), { 'Content-Type': 'application/octet-stream', ...headers });
      break;
  }
}

/** JSON for /api/random; plain text for the others, so a client reading bytes never takes an error for a value. */
function answerUnavailable(reply: Reply, format: ValueFormat, message: string): void {
  const headers = { ...noStore, 'Retry-After': retryAfterSeconds };
  if (format === 'json') reply.send(503, JSON.stringify({ error: message }), { 'Content-Type': jsonType, ...headers });
  else reply.send(503, `${message}\n`, { 'Content-Type': textType, ...headers });
}
