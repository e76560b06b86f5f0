// qpool's HTTP site: one value per request from the pool actor. Requests that arrive in the same
// turn go to the pool as one take (one message, one disk commit); /api/status and the rest are light.
//
// No CORS on this site: the API has no authentication, and `Access-Control-Allow-Origin: *` would let
// any web page a user opens read values from a pool on their loopback.
import { batched } from '../../../../src/actor/batch.js';
import { jsonType, prepareHeaders, textType, type HeaderList, type Reply } from '../../../../src/http/reply.js';
import { urlFor } from '../../../../src/http/server.js';
import { serveStatic } from '../../../../src/http/static.js';
import { version } from '../../../../src/version.js';
import { poolStatusTopic } from '../../../pool/kind.js';
import type { PoolStatus, PublishedStatus, TakeBatch } from '../../../pool/protocol.js';
import { asBuffer, entryCount, entryHex, entrySource, entryTimestamp, recordAt, valueBytes, entryBytes } from '../../../pool/value-batch.js';
import type { SiteDefinition, SiteMount } from '../../site.js';
import { roleUiAssets } from '../ui-assets.js';
import { qpoolHelpText } from './help.js';
import { qpoolOpenApi } from './openapi.js';
import type { QpoolSite } from './protocol.js';

type ValueFormat = 'json' | 'hex' | 'base64' | 'binary';

/** What one request gets: entry `index` of a batch the pool handed over, or why there is none. */
type TakeResult = { type: 'value'; values: Buffer; index: number; available: number } | { type: 'empty' } | { type: 'unavailable'; message: string };

const noStore = { 'Cache-Control': 'no-store' } as const;
/** Seconds a client should wait after a 503: values arrive in batches, rarely within seconds. */
const retryAfterSeconds = '30';

// The API has no authentication: no CORS, or any web page could read values (see above).
export const qpoolSite: SiteDefinition<QpoolSite> = { cors: false, logsRequests: () => false, mount: mountQpoolSite };

async function mountQpoolSite({ router, actor: context, site }: SiteMount<QpoolSite>): Promise<void> {
  const pool = context.peer(site.pool);
  // The pool publishes its status after every change; /api/status answers from the latest here once
  // it includes every take this front answered (a client reading its status after its own take sees it).
  let latest: PublishedStatus | undefined;
  let answeredChanges = 0;
  context.subscribe(poolStatusTopic, (published) => {
    if (latest === undefined || published.changes > latest.changes) latest = published;
  });
  const currentStatus = async (): Promise<PoolStatus> => {
    if (latest !== undefined && latest.changes >= answeredChanges) return latest.status;
    return pool.call((api) => api.status());
  };
  const take = batched<null, TakeResult>(async (requests) => {
    const answer = await pool.call((api) => api.take(requests.length));
    answeredChanges = Math.max(answeredChanges, answer.changes);
    return perRequest(answer, requests.length);
  });
  const statusHeaders = { 'Content-Type': jsonType, ...noStore, ...(site.demo ? { 'X-Quantum-Demo': '1' } : {}) };
  const openApi = JSON.stringify(qpoolOpenApi(version));
  const listenUrl = urlFor(context.config.host, context.config.port).replace(/\/$/, '');
  const versionJson = JSON.stringify({ product: 'qpool', version });

  const serveValue = (format: ValueFormat) => async (_request: unknown, reply: Reply) => {
    let result: TakeResult;
    try {
      result = await take(null);
    } catch (error) {
      context.log.warn('the pool did not answer', { error: String(error) });
      result = { type: 'unavailable', message: 'pool unavailable' };
    }
    if (result.type === 'value') answerValue(reply, format, result.values, result.index, result.available);
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
      const status = await currentStatus();
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

/** Fans one take's answer out to the requests that made it, in order. */
function perRequest(batch: TakeBatch, requests: number): TakeResult[] {
  if (batch.failure !== undefined) return Array.from({ length: requests }, () => ({ type: 'unavailable', message: batch.failure ?? '' }));
  const values = asBuffer(batch.values);
  const taken = entryCount(values);
  return Array.from({ length: requests }, (_, index) => (index < taken ? { type: 'value', values, index, available: batch.available + taken - 1 - index } : { type: 'empty' }));
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

function answerValue(reply: Reply, format: ValueFormat, values: Buffer, index: number, available: number): void {
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
