// qpool's HTTP site: one value per request from the pool actor, through the front's pool client
// (pool-client.ts: one take per turn, values held under load); /api/status and the rest are light.
//
// No CORS on this site: the API has no authentication, and `Access-Control-Allow-Origin: *` would let
// any web page a user opens read values from a pool on their loopback.
import { jsonType, textType, type Reply } from '../../../src/http/reply.js';
import type { RequestInfo } from '../../../src/http/request.js';
import { serveStatic } from '../../../src/http/static.js';
import { version } from '../../../src/version.js';
import type { SiteDefinition, SiteMount } from '../../../src/http/site.js';
import { roleUiAssets } from '../../../src/http/ui-assets.js';
import { qpoolHelpText } from './help.js';
import { qpoolOpenApi } from './openapi.js';
import { PoolClient, type TakeResult } from './pool-client.js';
import { qpoolApiVersion, type QpoolSite } from './protocol.js';
import { answerUnavailable, answerValue, noStore, type ValueFormat } from './value-answer.js';
import { urlFor } from '../../../src/net/address.js';
import { mountVersionRoute } from '../../../src/http/version-route.js';
import { assertNotCrossSite } from '../../../src/http/same-origin.js';

// The API has no authentication: no CORS, or any web page could read values (see above).
export const site: SiteDefinition<QpoolSite> = { cors: false, logsRequests: () => false, mount: mountQpoolSite };

async function mountQpoolSite({ router, actor: context, site }: SiteMount<QpoolSite>): Promise<void> {
  const pool = new PoolClient(context.peer(site.pool), context);
  const statusHeaders = { 'Content-Type': jsonType, ...noStore, ...(site.demo ? { 'X-Quantum-Demo': '1' } : {}) };
  const openApi = JSON.stringify(qpoolOpenApi(version));
  const listenUrl = urlFor(context.config.host, context.config.port).replace(/\/$/, '');

  // Each answer spends a value: a page of another site must not drain the pool with image tags.
  const serveValue = (format: ValueFormat) => (request: RequestInfo<unknown, unknown>, reply: Reply) => {
    assertNotCrossSite(request);
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
  mountVersionRoute(router, 'qpool', qpoolApiVersion);
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
    .get('/api/spec', (_request, reply) => reply.send(200, openApi, { 'Content-Type': jsonType }))
    .get('/api/help', (request, reply) =>
      reply.send(200, qpoolHelpText(version, helpBase(request.headers.get('host'), listenUrl)), { 'Content-Type': textType }),
    );
}

/** A Host header that is a plain host[:port] (name, IPv4 or [IPv6]); anything else is not echoed back. */
const hostHeader = /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,252})|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/;

/** The URL the curl lines of /api/help use: the one the client reached (a proxy's, too), else the listen address. */
function helpBase(host: string | undefined, listenUrl: string): string {
  return host !== undefined && hostHeader.test(host) ? `http://${host}` : listenUrl;
}
