// The routes of saved results: POST /api/results keeps one (through the results actor, which owns
// the file), GET /api/results lists the latest, GET /api/results/<id> reads one, and /r/<id> and
// /r/<id>.svg show it. A server started without a results file answers 404 on each, saying so.
// Addresses, when kept, stay in the file: no answer carries them.
import type { ActorContext } from '../../../src/actor/actor.js';
import { OutpostError } from '../../../src/errors.js';
import type { HttpFrontConfig } from '../../../src/http/front-config.js';
import { jsonType } from '../../../src/http/reply.js';
import type { Router } from '../../../src/http/router.js';
import { RateLimiter } from '../../../src/http/rate-limit.js';
import { pageSecurityHeaders } from '../../../src/http/security-headers.js';
import type { SpeedtestSite } from './protocol.js';
import { resultBodyLimit, resultIdPattern, resultInputSchema, type SavedAnswer, type SavedResult } from './result.js';
import { resultPage } from './result-page.js';
import { resultPicture } from './result-picture.js';

/** Results listed by GET /api/results unless `limit` says otherwise, and the most it may say. */
export const historyLength = { default: 20, max: 100 };
/** Saves one address may make: a burst of 10, then one every 6 seconds. */
const savesPerAddress = { limit: 10, windowMs: 60_000 };

const noStoreJson = { 'Content-Type': jsonType, 'Cache-Control': 'no-store' };

export function mountResultRoutes(router: Router, site: SpeedtestSite, actor: ActorContext<HttpFrontConfig>, stylesheet: string | undefined): void {
  if (site.results === undefined) {
    const none = () => {
      throw new OutpostError('ERR_NOT_FOUND', 'this server keeps no results (start it with --results FILE)');
    };
    router.post('/api/results', none).get('/api/results', none).get('/api/results/:id', none).get('/r/:id', none);
    return;
  }
  const results = actor.peer(site.results);
  const limiter = new RateLimiter(savesPerAddress);
  const find = async (raw: string): Promise<SavedResult> => {
    const result = resultIdPattern.test(raw) ? await results.call((api) => api.get(raw)) : undefined;
    if (result === undefined) throw new OutpostError('ERR_NOT_FOUND', 'no such result (the id is wrong, or the result is one of the oldest and was dropped)');
    return result;
  };
  router
    .post(
      '/api/results',
      async (request, reply) => {
        const address = request.remoteAddress;
        const saved = await results.call((api) => api.save(request.body, address));
        const answer: SavedAnswer = { id: saved.id, page: `r/${saved.id}`, picture: `r/${saved.id}.svg` };
        reply.send(201, JSON.stringify(answer), noStoreJson);
      },
      { json: resultInputSchema, bodyLimit: resultBodyLimit, rateLimit: { limiter } },
    )
    .get('/api/results', async (request, reply) => {
      const limit = historyLimit(request.query.get('limit'));
      const recent = await results.call((api) => api.recent(limit));
      reply.send(200, JSON.stringify({ results: recent.map(publicResult) }), noStoreJson);
    })
    .get('/api/results/:id', async (request, reply) => {
      reply.send(200, JSON.stringify(publicResult(await find(request.params.id!))), noStoreJson);
    })
    .get('/r/:id', async (request, reply) => {
      const raw = request.params.id!;
      if (raw.endsWith('.svg')) {
        const result = await find(raw.slice(0, -'.svg'.length));
        reply.send(200, resultPicture(publicResult(result)), {
          'Content-Type': 'image/svg+xml; charset=utf-8',
          'Cache-Control': 'public, max-age=86400',
          ...pageSecurityHeaders,
        });
        return;
      }
      const result = await find(raw);
      const recent = await results.call((api) => api.recent(historyLength.default));
      reply.send(200, resultPage(publicResult(result), recent.map(publicResult), stylesheet), {
        'Content-Type': 'text/html; charset=utf-8',
        'Cache-Control': 'no-cache',
        ...pageSecurityHeaders,
      });
    });
}

/** A result as answers show it: without the address it was sent from. */
function publicResult(result: SavedResult): SavedResult {
  if (result.address === undefined) return result;
  const shown = { ...result };
  delete shown.address;
  return shown;
}

function historyLimit(raw: string | null): number {
  if (raw === null || raw === '') return historyLength.default;
  const limit = Number(raw);
  if (!/^\d+$/.test(raw) || limit < 1 || limit > historyLength.max)
    throw new OutpostError('ERR_BAD_REQUEST', `limit must be a whole number from 1 to ${historyLength.max}`);
  return limit;
}
