// qpool's HTTP site: one value per request from the pool actor, through the front's pool client
// (pool-client.ts: one take per turn, values held under load); /api/status and the rest are light.
//
// No CORS on this site: the API has no authentication, and `Access-Control-Allow-Origin: *` would let
// any web page a user opens read values from a pool on their loopback.
import { jsonType, prepareHeaders, textType, type HeaderList, type Reply } from '../../../../src/http/reply.js';
import { urlFor } from '../../../../src/http/server.js';
import { serveStatic } from '../../../../src/http/static.js';
import { version } from '../../../../src/version.js';
import { entryBytes, entryHex, entrySource, entryTimestamp, recordAt, valueBytes } from '../../../pool/value-batch.js';
import type { SiteDefinition, SiteMount } from '../../site.js';
import { roleUiAssets } from '../ui-assets.js';
import { qpoolHelpText } from './help.js';
import { qpoolOpenApi } from './openapi.js';
import { PoolClient, type TakenValue, type TakeResult } from './pool-client.js';
import type { QpoolSite } from './protocol.js';

type ValueFormat = 'json' | 'hex' | 'base64' | 'binary';

const noStore = { 'Cache-Control': 'no-store' } as const;
/** Seconds a client should wait after a 503: values arrive in batches, rarely within seconds. */
const retryAfterSeconds = '30';

// The API has no authentication: no CORS, or any web page could read values (see above).
export const qpoolSite: SiteDefinition<QpoolSite> = { cors: false, logsRequests: () => false, mount: mountQpoolSite };

async function mountQpoolSite({ router, actor: context, site }: SiteMount<QpoolSite>): Promise<void> {
  const pool = new PoolClient(context.peer(site.pool), context);
  const statusHeaders = { 'Content-Type': jsonType, ...noStore, ...(site.demo ? { 'X-Quantum-Demo': '1' } : {}) };
  const openApi = JSON.stringify(qpoolOpenApi(version));
  const listenUrl = urlFor(context.config.host, context.config.port).replace(/\/$/, '');
  const versionJson = JSON.stringify({ product: 'qpool', version });

  const serveValue = (format: ValueFormat) => (_request: unknown, reply: Reply) => {
    const taken = pool.take();
    if (taken instanceof Promise) return answerTaken(format, reply, taken);
    answerValue(reply, format, taken);
  };
  const answerTaken = async (format: ValueFormat, reply: Reply, taking: Promise<TakeResult>) => {
    let result: TakeResult;
    try {
      result = await taking;
    } catch (error) {
      context.log.warn('the pool did not answer', { error: String(error) });
      result = { type: 'unavailable', message: 'pool unavailable' };
    }
    if (result.type === 'value') answerValue(reply, format, result);
    else answerUnavailable(reply, format, result.type === 'empty' ? 'pool empty' : result.message);
  };

  serveStatic(router, await roleUiAssets('qpool'));
  // No HEAD on the value routes (405): it would take a value out of the pool and throw it away.
  const takesValue = { head: false };
  router
    .get('/api/random', serveValue('json'), takesValue)
    .get('/api/random/hex', serveValue('hex'), takesValue)
    .get('/api/random/base64', serveValue('base64'), takesValue)
    .get('/api/random/binary', serveValue('binary'), takesValue)
    .get('/api/status', async (_request, reply) => {
      const status = await pool.status();
      reply.send(200, JSON.stringify(status), statusHeaders);
    })
    .get('/api/version', (_request, reply) => reply.send(200, versionJson, { 'Content-Type': jsonType }))
    .get('/api/spec', (_request, reply) => reply.send(200, openApi, { 'Content-Type': jsonType }))
    .get('/api/help', (request, reply) => reply.send(200, qpoolHelpText(version, helpBase(request.headers.get('host'), listenUrl)), { 'Content-Type': textType }));
}

/** A Host header that is a plain host[:port] (name, IPv4 or [IPv6]); anything else is not echoed back. */
const hostHeader = /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,252})|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/;

/** The URL the curl lines of /api/help use: the one the client reached (a proxy's, too), else the listen address. */
function helpBase(host: string | undefined, listenUrl: string): string {
  return host !== undefined && hostHeader.test(host) ? `http://${host}` : listenUrl;
}

const contentTypes: Record<ValueFormat, string> = { json: jsonType, hex: textType, base64: textType, binary: 'application/octet-stream' };
// The headers every value answer carries, encoded once: writing them is most of a value's cost.
const fixedHeaders = Object.fromEntries(
  (['json', 'hex', 'base64', 'binary'] as const).map((format) => [
    format,
    prepareHeaders({ 'Content-Type': contentTypes[format], ...noStore, 'X-Quantum-Bits': '1024', 'X-Quantum-Format': format }),
  ]),
) as Record<ValueFormat, HeaderList>;
const timestampName = Buffer.from('X-Quantum-Timestamp');
const sourceName = Buffer.from('X-Quantum-Source');
const availableName = Buffer.from('X-Quantum-Available');
/** Values of one arrival share their collection time: its text is made once. */
const lastTimestamp = { millis: Number.NaN, text: '' };

function timestampText(millis: number): string {
  if (millis !== lastTimestamp.millis) {
    lastTimestamp.millis = millis;
    lastTimestamp.text = new Date(millis).toISOString();
  }
  return lastTimestamp.text;
}

function answerValue(reply: Reply, format: ValueFormat, { values, index, available }: TakenValue): void {
  const headers: HeaderList = [
    ...fixedHeaders[format],
    [timestampName, timestampText(entryTimestamp(values, index))],
    [sourceName, entrySource(values, index)],
    [availableName, String(available)],
  ];
  const start = index * entryBytes;
  switch (format) {
    case 'json':
      reply.send(200, JSON.stringify(recordAt(values, index)), headers);
      break;
    case 'hex':
      reply.send(200, `${entryHex(values, index)}\n`, headers);
      break;
    case 'base64':
      reply.send(200, `${values.toString('base64', start, start + valueBytes)}\n`, headers);
      break;
    case 'binary':
      reply.send(200, values.subarray(start, start + valueBytes), headers);
      break;
  }
}

/** JSON for /api/random; plain text for the others, so a client reading bytes never takes an error for a value. */
function answerUnavailable(reply: Reply, format: ValueFormat, message: string): void {
  const headers = { ...noStore, 'Retry-After': retryAfterSeconds };
  if (format === 'json') reply.send(503, JSON.stringify({ error: message }), { 'Content-Type': jsonType, ...headers });
  else reply.send(503, `${message}\n`, { 'Content-Type': textType, ...headers });
}
