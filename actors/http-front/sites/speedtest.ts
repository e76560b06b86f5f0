// netspeed's HTTP site: the test page, /api/ping, /api/download, /api/upload, /api/info. Downloads
// stream slices of one random buffer made at start (incompressible, never copied per request) with
// uWS backpressure; uploads are counted as they arrive and never buffered.
import { randomBytes } from 'node:crypto';
import type { ActorContext } from '../../../src/actor/actor.js';
import { OutpostError } from '../../../src/errors.js';
import { jsonType, type Reply } from '../../../src/http/reply.js';
import type { Router } from '../../../src/http/router.js';
import { serveStatic } from '../../../src/http/static.js';
import { version } from '../../../src/version.js';
import type { HttpFrontConfig, PingResult, SpeedtestInfo, SpeedtestSite, UploadResult } from '../protocol.js';
import { ByteTimeline } from './byte-timeline.js';
import { roleUiAssets } from './ui-assets.js';

/** The random data every download is cut from: large enough that no pattern is short. */
const poolBytes = 4 * 1024 * 1024;
/** How much of the pool one write hands to uWS. */
const writeBytes = 1024 * 1024;

const noStoreJson = { 'Content-Type': jsonType, 'Cache-Control': 'no-store' };

export async function mountSpeedtestSite(router: Router, _context: ActorContext<HttpFrontConfig>, site: SpeedtestSite): Promise<void> {
  const pool = randomBytes(poolBytes);
  const info: SpeedtestInfo = {
    version,
    server: 'netspeed',
    name: site.name,
    test_duration: site.testDurationSeconds,
    max_download_bytes: site.maxDownloadBytes,
    max_upload_bytes: site.maxUploadBytes,
  };
  const infoJson = JSON.stringify(info);

  serveStatic(router, await roleUiAssets('speedtest'));
  router
    .get('/api/info', (_request, reply) => reply.send(200, infoJson, noStoreJson))
    .get('/api/ping', (_request, reply) => {
      const result: PingResult = { timestamp: epochSeconds() };
      reply.send(200, JSON.stringify(result), noStoreJson);
    })
    .get('/api/download', (request, reply) => {
      streamDownload(reply, pool, downloadSize(request.query.get('size'), site.maxDownloadBytes));
    })
    .post('/api/upload', (request, reply) => {
      countUpload(reply, request.headers.get('content-length'), site.maxUploadBytes);
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

function streamDownload(reply: Reply, pool: Buffer, size: number): void {
  const res = reply.res;
  reply.beginStream(200, { 'Content-Type': 'application/octet-stream', 'Cache-Control': 'no-store', 'Content-Encoding': 'identity' });
  if (size === 0) {
    res.cork(() => res.end());
    reply.endStream();
    return;
  }
  // The slice being written and the write offset it started at: when the socket takes only part of
  // it, the rest is offered again from the new write offset (uWS's tryEnd/onWritable protocol).
  let pending: { chunk: Buffer; startOffset: number } | undefined;
  let handedOut = 0;
  const write = (): boolean => {
    while (!reply.aborted) {
      if (pending === undefined) {
        const start = handedOut % pool.length;
        const length = Math.min(writeBytes, size - handedOut, pool.length - start);
        pending = { chunk: pool.subarray(start, start + length), startOffset: res.getWriteOffset() };
        handedOut += length;
      }
      const [accepted, done] = res.tryEnd(pending.chunk.subarray(res.getWriteOffset() - pending.startOffset), size);
      if (done) {
        reply.endStream();
        return true;
      }
      if (!accepted) return false;
      pending = undefined;
    }
    return true;
  };
  res.onWritable(() => write());
  res.cork(() => void write());
}

function countUpload(reply: Reply, contentLength: string | undefined, max: number): void {
  const startedAt = performance.now();
  if (contentLength !== undefined && Number(contentLength) > max) {
    reply.res.onData(() => {});
    reply.error(new OutpostError('ERR_BODY_TOO_LARGE', `upload larger than ${max} bytes`));
    return;
  }
  let size = 0;
  let refused = false;
  const landed = new ByteTimeline(startedAt);
  const answer = () => {
    const result: UploadResult = { size, duration: (performance.now() - startedAt) / 1000, timestamp: epochSeconds(), landed: landed.toJSON() };
    reply.send(200, JSON.stringify(result), noStoreJson);
  };
  reply.res.onData((chunk, isLast) => {
    if (refused) return;
    size += chunk.byteLength;
    landed.record(performance.now(), size);
    if (size > max) {
      refused = true;
      reply.error(new OutpostError('ERR_BODY_TOO_LARGE', `upload larger than ${max} bytes`));
      return;
    }
    if (isLast) answer();
  });
  if (contentLength === '0') answer();
}
