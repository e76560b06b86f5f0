// The three measurements of the terminal client (spec part A, and shared/reference/speedtest-method.md):
// ping on one keep-alive connection with the first sample discarded; download and upload over six
// parallel streams; latency measured again while each transfer runs (bufferbloat).
import { randomBytes } from 'node:crypto';
import type { PingResult, UploadResult } from '../../../actors/http-front/sites/speedtest/protocol.js';
import { apiUrl } from './server-url.js';
import { createAgent, exchange, getJson } from './http.js';
import { downloadCounting } from './raw-download.js';
import { goodputBitsPerSecond, type ByteSample } from './statistics.js';

export interface PingSamples {
  /** Round trips in milliseconds, warm-up left out. */
  rtts: number[];
}

export async function measurePing(server: URL, count: number): Promise<PingSamples> {
  const agent = createAgent(server, 1);
  try {
    const rtts: number[] = [];
    // The first request pays for the TCP (and TLS) handshake: not a round trip of the path.
    await pingOnce(server, agent);
    for (let index = 0; index < count; index++) rtts.push(await pingOnce(server, agent));
    return { rtts };
  } finally {
    agent.destroy();
  }
}

async function pingOnce(server: URL, agent: ReturnType<typeof createAgent>): Promise<number> {
  const url = apiUrl(server, `/api/ping`);
  url.searchParams.set('r', Math.random().toString(36).slice(2));
  const startedAt = performance.now();
  const { status } = await getJson<PingResult>(url, agent);
  if (status !== 200) throw new Error(`ping answered HTTP ${status}`);
  return performance.now() - startedAt;
}

/** Pings every `everyMs` on its own connection until stopped: latency while a transfer loads the path. */
export function pingWhileLoaded(server: URL, everyMs: number): { stop(): Promise<number[]> } {
  const agent = createAgent(server, 1);
  const rtts: number[] = [];
  let running = true;
  const loop = (async () => {
    await pingOnce(server, agent).catch(() => 0);
    while (running) {
      const startedAt = performance.now();
      try {
        rtts.push(await pingOnce(server, agent));
      } catch {
        // A ping lost under load is left out; the transfer's own error is what gets reported.
      }
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, everyMs - (performance.now() - startedAt))));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      agent.destroy();
      return rtts;
    },
  };
}

export interface TransferResult {
  bytes: number;
  seconds: number;
  bitsPerSecond: number;
}

/** Splits `total` bytes into `streams` near-equal parts. */
function split(total: number, streams: number): number[] {
  const base = Math.floor(total / streams);
  return Array.from({ length: streams }, (_, index) => base + (index < total % streams ? 1 : 0));
}

export async function measureDownload(server: URL, totalBytes: number, streams: number, onProgress: (bytes: number, total: number) => void): Promise<TransferResult> {
  const samples: ByteSample[] = [];
  let received = 0;
  const count = (bytes: number) => {
    received += bytes;
    samples.push({ at: performance.now(), total: received });
    onProgress(received, totalBytes);
  };
  const startedAt = performance.now();
  await Promise.all(
    split(totalBytes, streams).map(async (size) => {
      const url = apiUrl(server, '/api/download');
      url.searchParams.set('size', String(size));
      url.searchParams.set('r', Math.random().toString(36).slice(2));
      if (server.protocol === 'http:') {
        await downloadCounting(url, count);
        return;
      }
      const agent = createAgent(server, 1);
      try {
        const response = await exchange(url, agent);
        if (response.status !== 200) throw new Error(`download answered HTTP ${response.status}`);
        await response.body((chunk) => count(chunk.length));
      } finally {
        agent.destroy();
      }
    }),
  );
  if (received !== totalBytes) throw new Error(`download delivered ${received} of ${totalBytes} bytes`);
  const last = samples.at(-1)?.at ?? startedAt;
  return { bytes: received, seconds: (last - startedAt) / 1000, bitsPerSecond: goodputBitsPerSecond(samples, startedAt) };
}

/**
 * Upload is counted where it lands: each stream's bytes and duration as the server measured them,
 * combined over the span from the first stream's start to the last one's end on the server's clock.
 */
export async function measureUpload(server: URL, totalBytes: number, streams: number): Promise<TransferResult> {
  const agent = createAgent(server, streams);
  const payload = randomBytes(Math.ceil(totalBytes / streams));
  try {
    const results = await Promise.all(
      split(totalBytes, streams).map(async (size) => {
        const response = await exchange(apiUrl(server, '/api/upload'), agent, { method: 'POST', body: payload.subarray(0, size) });
        const body = (await response.body()) ?? Buffer.alloc(0);
        if (response.status !== 200) throw new Error(`upload answered HTTP ${response.status}: ${body.toString('utf8')}`);
        return JSON.parse(body.toString('utf8')) as UploadResult;
      }),
    );
    const bytes = results.reduce((sum, result) => sum + result.size, 0);
    const start = Math.min(...results.map((result) => result.timestamp - result.duration));
    const end = Math.max(...results.map((result) => result.timestamp));
    const seconds = Math.max(end - start, 1e-6);
    return { bytes, seconds, bitsPerSecond: (bytes * 8) / seconds };
  } finally {
    agent.destroy();
  }
}

