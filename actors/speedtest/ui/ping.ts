// Latency: tiny requests one after another on one kept-alive connection, the first of each run
// discarded because it may carry the TCP handshake.
//
// The requests go without credentials. Browsers pool credential-less connections apart from the
// others (Chromium keys its socket groups by privacy mode, Firefox by its anonymous flag), so while six
// download or upload streams hold the six connections HTTP/1.1 allows per host, a ping still has a
// connection of its own: loaded latency then measures the network's queues, not the browser's.
import { pingLostAfterMs } from '../browser.js';
import { freshApiUrl, refusalOf } from './api.js';
import { pingSpacingMs } from './method.js';
import { pause } from './pause.js';

export interface PingRun {
  /** Round trips in ms of the pings answered, the handshake's left out. */
  samples: number[];
  /** Pings that had their answer or their full second, the handshake's left out. */
  sent: number;
  /** Those with no answer within `pingLostAfterMs`. */
  lost: number;
}

/**
 * Pings until `signal` aborts; returns the round trips in ms, each also passed to `onSample` as it
 * comes, and the pings lost. A ping still within its second when the phase ends is not counted.
 */
export async function pingUntil(signal: AbortSignal, onSample: (ms: number) => void = () => {}): Promise<PingRun> {
  const run: PingRun = { samples: [], sent: 0, lost: 0 };
  let handshake = true;
  while (!signal.aborted) {
    const started = performance.now();
    const lostAfter = AbortSignal.timeout(pingLostAfterMs);
    let ms: number;
    try {
      ms = await roundTrip(AbortSignal.any([signal, lostAfter]));
    } catch (error) {
      if (signal.aborted) break;
      if (!lostAfter.aborted) throw error;
      if (!handshake) {
        run.sent++;
        run.lost++;
      }
      continue;
    }
    if (handshake) handshake = false;
    else {
      run.sent++;
      run.samples.push(ms);
      onSample(ms);
    }
    await pause(pingSpacingMs - (performance.now() - started), signal);
  }
  return run;
}

async function roundTrip(signal: AbortSignal): Promise<number> {
  const url = freshApiUrl('ping');
  const started = performance.now();
  const response = await fetch(url, { cache: 'no-store', credentials: 'omit', signal });
  if (!response.ok) throw await refusalOf('ping', response);
  await response.arrayBuffer();
  const wallMs = performance.now() - started;
  return networkRoundTrip(url) ?? wallMs;
}

/**
 * From the request leaving to the answer's first byte, by Resource Timing: it leaves out the page's own
 * delays, which grow while a download keeps the main thread busy reading.
 */
function networkRoundTrip(url: string): number | undefined {
  const entry = performance.getEntriesByName(url, 'resource').at(-1) as PerformanceResourceTiming | undefined;
  // Entries pile up (a download adds one per request) until the buffer is full and new ones are dropped.
  performance.clearResourceTimings();
  if (entry === undefined || entry.requestStart === 0 || entry.responseStart < entry.requestStart) return undefined;
  return entry.responseStart - entry.requestStart;
}
