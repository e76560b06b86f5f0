// netspeed's HTTP site: the test page, /api/ping, /api/download, /api/upload, /api/info (the spec's),
// /api/version (every site's), saved results (results-routes.ts). Downloads
// stream slices of one random buffer made at start (incompressible, never copied per request) with
// uWS backpressure; uploads are counted as they arrive and never buffered.
import { randomBytes } from 'node:crypto';
import { OutpostError } from '../../../src/errors.js';
import { jsonType, type Reply } from '../../../src/http/reply.js';
import { serveStatic } from '../../../src/http/static.js';
import { version } from '../../../src/version.js';
import type { SiteDefinition, SiteMount } from '../../../src/http/site.js';
import { roleUiAssets } from '../../../src/http/ui-assets.js';
import type { RequestInfo } from '../../../src/http/request.js';
import { ByteTimeline } from './byte-timeline.js';
import { speedtestApiVersion, type PingResult, type SpeedtestInfo, type SpeedtestSite, type UploadResult } from './protocol.js';
import { mountVersionRoute } from '../../../src/http/version-route.js';
import { SpeedtestFigures, type SpeedtestPhase } from './speedtest-figures.js';
import { mountResultRoutes } from './results-routes.js';

/** The random data every download is cut from: large enough that no pattern is short. */
const poolBytes = 4 * 1024 * 1024;
/** How much of the pool one write hands to uWS. */
const writeBytes = 1024 * 1024;

const noStoreJson = { 'Content-Type': jsonType, 'Cache-Control': 'no-store' };

export const site: SiteDefinition<SpeedtestSite> = { cors: true, logsRequests: (site) => site.logRequests, mount: mountSpeedtestSite };

async function mountSpeedtestSite({ router, site, actor }: SiteMount<SpeedtestSite>): Promise<void> {
  const pool = randomBytes(poolBytes);
  // Counted only when the host config has metrics on.
  const figures = actor.metrics.enabled ? new SpeedtestFigures() : undefined;
  if (figures !== undefined) actor.metrics.addSource(() => figures.families());
  const begin = (phase: SpeedtestPhase, reply: Reply) => {
    if (figures === undefined) return;
    figures.begin(phase);
    reply.onFinish((status) => {
      if (status === 200) figures.complete(phase);
    });
  };
  const info: SpeedtestInfo = {
    version,
    server: 'netspeed',
    name: site.name,
    test_duration: site.testDurationSeconds,
    max_download_bytes: site.maxDownloadBytes,
    max_upload_bytes: site.maxUploadBytes,
    results: site.results !== undefined,
  };
  const infoJson = JSON.stringify(info);

  const assets = await roleUiAssets('speedtest');
  serveStatic(router, assets);
  mountResultRoutes(
    router,
    site,
    actor,
    [...assets.keys()].find((path) => /^\/style-[A-Z0-9]{8}\.css$/.test(path)),
  );
  mountVersionRoute(router, 'netspeed', speedtestApiVersion);
  router
    .get('/api/info', (_request, reply) => reply.send(200, infoJson, noStoreJson))
    .get('/api/ping', (_request, reply) => {
      begin('ping', reply);
      const result: PingResult = { timestamp: epochSeconds() };
      reply.send(200, JSON.stringify(result), noStoreJson);
    })
    .get('/api/download', (request, reply) => {
      begin('download', reply);
      streamDownload(reply, pool, downloadSize(request.query.get('size'), site.maxDownloadBytes), figures);
    })
    .post('/api/upload', (request, reply) => {
      begin('upload', reply);
      return countUpload(request, reply, site.maxUploadBytes, figures);
    });
}

/**
 * Wall-clock seconds with sub-millisecond resolution: a client combines the upload timestamps of
 * several streams, answered by different front threads, and a fast upload lasts milliseconds.
 */
function epochSeconds(): number {
  return (performance.timeOrigin + performance.now()) / 1000;
}

function downloadSize(raw: string | null, max: number): number {
  if (raw === null || raw === '') return max;
  if (!/^\d+$/.test(raw)) throw new OutpostError('ERR_BAD_REQUEST', `size must be a whole number of bytes from 0 to ${max}`);
  const size = Number(raw);
  if (size > max) throw new OutpostError('ERR_BAD_REQUEST', `size must be at most ${max} bytes (100 MB, decimal)`);
  return size;
}

const downloadHeaders = { 'Content-Type': 'application/octet-stream', 'Cache-Control': 'no-store', 'Content-Encoding': 'identity' };

/** `size` bytes cut from the pool, a megabyte at a time, as fast as the client takes them. */
function streamDownload(reply: Reply, pool: Buffer, size: number, figures: SpeedtestFigures | undefined): void {
  reply.stream(200, downloadHeaders, size, (offset) => {
    const start = offset % pool.length;
    const chunk = pool.subarray(start, Math.min(start + writeBytes, pool.length));
    // What the stream takes of the chunk: the last one is cut at the announced size.
    figures?.served(Math.min(chunk.byteLength, size - offset));
    return chunk;
  });
}

/** Counts an upload as it arrives (never buffered) and answers with its size and how long it took to land. */
async function countUpload(request: RequestInfo, reply: Reply, max: number, figures: SpeedtestFigures | undefined): Promise<void> {
  const startedAt = performance.now();
  const landed = new ByteTimeline(startedAt);
  let received = 0;
  const size = await request.readBody({
    limit: max,
    what: 'upload',
    onChunk: (chunk) => {
      received += chunk.byteLength;
      figures?.received(chunk.byteLength);
      landed.record(performance.now(), received);
    },
  });
  const result: UploadResult = { size, duration: (performance.now() - startedAt) / 1000, timestamp: epochSeconds(), landed: landed.toJSON() };
  reply.send(200, JSON.stringify(result), noStoreJson);
}
