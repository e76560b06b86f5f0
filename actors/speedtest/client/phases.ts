// The three measurements of the terminal client (docs/netspeed.md, "How it measures"; after LibreSpeed, Cloudflare's speed test and iperf3):
// ping on one keep-alive connection with the first sample discarded; download and upload over six
// parallel streams; latency measured again while each transfer runs (bufferbloat).
import { randomBytes } from 'node:crypto';
import type { PingResult, UploadResult } from '../site/protocol.js';
import type { Deadline, Phase } from './deadline.js';
import { goodputBitsPerSecond, type ByteSample, type StreamTimeline } from './goodput.js';
import { createAgent, exchange, getJson, type Agent } from './http.js';
import { connectForDownload, type DownloadConnection } from './raw-download.js';
import { apiUrl } from './server-url.js';

/** The server measured against, and how long any step may wait before the client gives up. */
export interface Target {
  url: URL;
  /** The address as the user gave it (see server-url.ts). */
  shown: string;
  timeoutMs: number;
}

export function deadlineOf(target: Target, phase: Phase): Deadline {
  return { phase, server: target.shown, timeoutMs: target.timeoutMs };
}

export interface PingSamples {
  /** Round trips in milliseconds, warm-up left out. */
  rtts: number[];
}

export async function measurePing(target: Target, count: number): Promise<PingSamples> {
  const agent = createAgent(target.url, 1);
  try {
    const rtts: number[] = [];
    // The first request pays for the TCP (and TLS) handshake: not a round trip of the path.
    await pingOnce(target, agent);
    for (let index = 0; index < count; index++) rtts.push(await pingOnce(target, agent));
    return { rtts };
  } finally {
    agent.destroy();
  }
}

async function pingOnce(target: Target, agent: Agent): Promise<number> {
  const url = apiUrl(target.url, `/api/ping`);
  url.searchParams.set('r', Math.random().toString(36).slice(2));
  const startedAt = performance.now();
  const { status } = await getJson<PingResult>(url, agent, deadlineOf(target, 'ping'));
  if (status !== 200) throw new Error(`ping: the server answered HTTP ${status}`);
  return performance.now() - startedAt;
}

/** Pings every `everyMs` on its own connection until stopped: latency while a transfer loads the path. */
export function pingWhileLoaded(target: Target, everyMs: number): { stop(): Promise<number[]> } {
  const agent = createAgent(target.url, 1);
  const rtts: number[] = [];
  let running = true;
  const loop = (async () => {
    await pingOnce(target, agent).catch(() => 0);
    while (running) {
      const startedAt = performance.now();
      try {
        rtts.push(await pingOnce(target, agent));
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
  /** From the start to the last byte. */
  seconds: number;
  /** Goodput over the steady window (see goodput.ts). */
  bitsPerSecond: number;
}

/** What one transfer moves, over how many streams, and the warm-up its figure leaves out (see goodput.ts). */
export interface TransferPlan {
  bytes: number;
  streams: number;
  warmUpMs: number;
}

/** Splits `total` bytes into `streams` near-equal parts. */
function split(total: number, streams: number): number[] {
  const base = Math.floor(total / streams);
  return Array.from({ length: streams }, (_, index) => base + (index < total % streams ? 1 : 0));
}

/**
 * Downloads `plan.bytes` over `plan.streams` connections, each stream's bytes timed as they land.
 * Every stream connects first; the requests go out together and the clock starts with them.
 */
export async function measureDownload(target: Target, plan: TransferPlan, onProgress: (bytes: number, total: number) => void): Promise<TransferResult> {
  const deadline = deadlineOf(target, 'download');
  const urls = split(plan.bytes, plan.streams).map((size) => {
    const url = apiUrl(target.url, '/api/download');
    url.searchParams.set('size', String(size));
    url.searchParams.set('r', Math.random().toString(36).slice(2));
    return url;
  });
  const connections = target.url.protocol === 'http:' ? await connectAll(urls, deadline) : urls.map((url) => httpsDownload(url, deadline));
  const timelines = urls.map((): ByteSample[] => []);
  let received = 0;
  const startedAt = performance.now();
  try {
    await Promise.all(
      connections.map((connection, index) => {
        const samples = timelines[index]!;
        return connection.fetch((total) => {
          received += total - (samples.at(-1)?.total ?? 0);
          samples.push({ at: performance.now(), total });
          onProgress(received, plan.bytes);
        });
      }),
    );
  } finally {
    for (const connection of connections) connection.close();
  }
  if (received !== plan.bytes) throw new Error(`download: the server delivered ${received} of ${plan.bytes} bytes`);
  const lastByte = Math.max(...timelines.map((samples) => samples.at(-1)?.at ?? startedAt));
  return { bytes: received, seconds: (lastByte - startedAt) / 1000, bitsPerSecond: goodputBitsPerSecond(timelines, startedAt, plan.warmUpMs) };
}

/** Connects every URL's stream; when one cannot connect, the others are closed. */
async function connectAll(urls: URL[], deadline: Deadline): Promise<DownloadConnection[]> {
  const outcomes = await Promise.allSettled(urls.map((url) => connectForDownload(url, deadline)));
  const connected = outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
  const failed = outcomes.find((outcome) => outcome.status === 'rejected');
  if (failed === undefined) return connected;
  for (const connection of connected) connection.close();
  throw failed.reason;
}

/** A download over node:https, for https:// servers (TLS cannot be read off the socket raw). */
function httpsDownload(url: URL, deadline: Deadline): DownloadConnection {
  const agent = createAgent(url, 1);
  return {
    async fetch(onBytes) {
      const response = await exchange(url, agent, deadline);
      if (response.status !== 200) throw new Error(`download: the server answered HTTP ${response.status}`);
      let total = 0;
      await response.body((chunk) => onBytes((total += chunk.length)));
      return total;
    },
    close: () => agent.destroy(),
  };
}

/**
 * Upload is counted where it lands: the server answers each stream with when its bytes arrived, and
 * the streams' timelines, all on the server's clock, are combined like the download's.
 */
export async function measureUpload(target: Target, plan: TransferPlan): Promise<TransferResult> {
  const deadline = deadlineOf(target, 'upload');
  const agent = createAgent(target.url, plan.streams);
  const payload = randomBytes(Math.ceil(plan.bytes / plan.streams));
  try {
    const results = await Promise.all(
      split(plan.bytes, plan.streams).map(async (size) => {
        const response = await exchange(apiUrl(target.url, '/api/upload'), agent, deadline, { method: 'POST', body: payload.subarray(0, size) });
        const body = (await response.body()) ?? Buffer.alloc(0);
        if (response.status !== 200) throw new Error(`upload: the server answered HTTP ${response.status}: ${body.toString('utf8')}`);
        return JSON.parse(body.toString('utf8')) as UploadResult;
      }),
    );
    const bytes = results.reduce((sum, result) => sum + result.size, 0);
    // Milliseconds on the server's wall clock, from each stream's arrival (its last byte less its duration).
    const arrivals = results.map((result) => (result.timestamp - result.duration) * 1000);
    const startedAt = Math.min(...arrivals);
    const perStream = results.map(
      (result, index): StreamTimeline => result.landed.map(([seconds, total]) => ({ at: arrivals[index]! + seconds * 1000 - startedAt, total })),
    );
    const end = Math.max(...results.map((result) => result.timestamp * 1000)) - startedAt;
    return { bytes, seconds: Math.max(end, 1e-3) / 1000, bitsPerSecond: goodputBitsPerSecond(perStream, 0, plan.warmUpMs) };
  } finally {
    agent.destroy();
  }
}
