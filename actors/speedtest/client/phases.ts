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
import { pingLostAfterMs } from '../site/grades.js';

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
  /** Round trips in milliseconds of the pings answered, warm-up left out. */
  rtts: number[];
  /** Pings sent, warm-up left out. */
  sent: number;
  /** Pings not answered within `pingLostAfterMs`. */
  lost: number;
}

export async function measurePing(target: Target, count: number): Promise<PingSamples> {
  let agent = createAgent(target.url, 1);
  try {
    const rtts: number[] = [];
    let lost = 0;
    // The first request pays for the TCP (and TLS) handshake: not a round trip of the path.
    await pingOnce(target, agent);
    const lossDeadline = { ...target, timeoutMs: Math.min(target.timeoutMs, pingLostAfterMs) };
    for (let index = 0; index < count; index++) {
      try {
        rtts.push(await pingOnce(lossDeadline, agent));
      } catch {
        // The connection of a lost ping may still carry its answer: the next ping goes on a new one.
        lost++;
        agent.destroy();
        agent = createAgent(target.url, 1);
      }
    }
    if (rtts.length === 0) throw new Error(`ping: none of ${count} pings to ${target.shown} was answered within ${pingLostAfterMs / 1000} s`);
    return { rtts, sent: count, lost };
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

/** How a download reads its streams: straight off the socket (netspeed, which always sends Content-Length), or through node:http (any server). */
export interface DownloadPlan extends TransferPlan {
  raw: boolean;
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
export async function measureDownload(target: Target, plan: DownloadPlan, onProgress: (bytes: number, total: number) => void): Promise<TransferResult> {
  const deadline = deadlineOf(target, 'download');
  const urls = split(plan.bytes, plan.streams).map((size) => {
    const url = apiUrl(target.url, '/api/download');
    url.searchParams.set('size', String(size));
    url.searchParams.set('r', Math.random().toString(36).slice(2));
    return url;
  });
  const connections = plan.raw && target.url.protocol === 'http:' ? await connectAll(urls, deadline) : urls.map((url) => nodeDownload(url, deadline));
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

/**
 * A download over node:http or node:https: for https:// servers (TLS cannot be read off the socket
 * raw), and for servers other than netspeed, whose answer may come in chunks without a length.
 */
function nodeDownload(url: URL, deadline: Deadline): DownloadConnection {
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
 * the streams' timelines, all on the server's clock, are combined like the download's. A server
 * without `landed` (any server of the specification) gives each stream's arrival and end on its own
 * clock (`timestamp` less `duration`, and `timestamp`), taken as a steady stream between them; one
 * without those either is timed on the client's clock, from the requests' start to each answer.
 */
export async function measureUpload(target: Target, plan: TransferPlan): Promise<TransferResult> {
  const deadline = deadlineOf(target, 'upload');
  const agent = createAgent(target.url, plan.streams);
  const payload = randomBytes(Math.ceil(plan.bytes / plan.streams));
  try {
    const startedAt = performance.now();
    const answers = await Promise.all(
      split(plan.bytes, plan.streams).map(async (size) => {
        const response = await exchange(apiUrl(target.url, '/api/upload'), agent, deadline, { method: 'POST', body: payload.subarray(0, size) });
        const body = (await response.body()) ?? Buffer.alloc(0);
        const answeredAt = performance.now();
        if (response.status !== 200) throw new Error(`upload: the server answered HTTP ${response.status}: ${body.toString('utf8')}`);
        return { sent: size, answeredAt, result: uploadAnswer(body) };
      }),
    );
    const bytes = answers.reduce((sum, answer) => sum + (answer.result.size ?? answer.sent), 0);
    const timed = answers.flatMap(({ result }) =>
      result.timestamp === undefined || result.duration === undefined ? [] : [{ ...result, timestamp: result.timestamp, duration: result.duration }],
    );
    if (timed.length < answers.length) {
      // No clock of the server's: from the requests' start to the last answer, on the client's.
      const seconds = Math.max(...answers.map((answer) => answer.answeredAt - startedAt)) / 1000;
      return { bytes, seconds, bitsPerSecond: (bytes * 8) / Math.max(seconds, 1e-3) };
    }
    // Milliseconds on the server's wall clock, from each stream's arrival (its last byte less its duration).
    const arrivals = timed.map((result) => (result.timestamp - result.duration) * 1000);
    const firstArrival = Math.min(...arrivals);
    const perStream = timed.map((result, index): StreamTimeline => {
      const arrival = arrivals[index]! - firstArrival;
      if (result.landed !== undefined) return result.landed.map(([seconds, total]) => ({ at: arrival + seconds * 1000, total }));
      return [
        { at: arrival, total: 0 },
        { at: arrival + result.duration * 1000, total: result.size ?? 0 },
      ];
    });
    const end = Math.max(...timed.map((result) => result.timestamp * 1000)) - firstArrival;
    return { bytes, seconds: Math.max(end, 1e-3) / 1000, bitsPerSecond: goodputBitsPerSecond(perStream, 0, plan.warmUpMs) };
  } finally {
    agent.destroy();
  }
}

/** The fields of an upload's answer that hold their type; the rest is left out. */
function uploadAnswer(body: Buffer): Partial<UploadResult> {
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch {
    throw new Error(`upload: the server's answer is not JSON`);
  }
  if (typeof value !== 'object' || value === null) throw new Error(`upload: the server's answer is not a JSON object`);
  const { size, duration, timestamp, landed } = value as Record<string, unknown>;
  const finite = (field: unknown) => (typeof field === 'number' && Number.isFinite(field) && field >= 0 ? field : undefined);
  const points =
    Array.isArray(landed) && landed.every((point) => Array.isArray(point) && point.length === 2 && point.every((part) => typeof part === 'number'));
  return {
    ...(finite(size) === undefined ? {} : { size: finite(size)! }),
    ...(finite(duration) === undefined ? {} : { duration: finite(duration)! }),
    ...(finite(timestamp) === undefined ? {} : { timestamp: finite(timestamp)! }),
    ...(points && (landed as unknown[]).length > 0 ? { landed: landed as [number, number][] } : {}),
  };
}
