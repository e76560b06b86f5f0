// One whole test: ping, then download, then upload, each for the server's phase duration, with the
// ping loop running on during download and upload to see how latency grows under load.
import type { SpeedtestInfo } from '../browser.js';
import { measureDownload } from './download.js';
import { loadedLatency, summarizeLatency, type LatencySummary, type LoadedLatency } from './latency.js';
import { pingUntil } from './ping.js';
import { measureUpload, type UploadMeasurement } from './upload.js';

export type Phase = 'ping' | 'download' | 'upload';

export interface TestResult {
  ping: LatencySummary;
  /** Pings of the ping phase sent and lost (no answer within a second). */
  pingLoss: { sent: number; lost: number };
  downloadBitsPerSecond: number;
  upload: UploadMeasurement;
  loaded: { download: LoadedLatency | undefined; upload: LoadedLatency | undefined };
}

export interface TestObserver {
  phaseStarted(phase: Phase, phaseMs: number): void;
  /** The live figure: ms during ping, bits per second during download and upload. */
  live(phase: Phase, value: number): void;
  /** The phase's result in the same unit. */
  phaseFinished(phase: Phase, value: number): void;
}

export async function runSpeedTest(info: SpeedtestInfo, observer: TestObserver): Promise<TestResult> {
  const phaseMs = info.test_duration * 1000;

  observer.phaseStarted('ping', phaseMs);
  const pings = await timed(phaseMs, (phase) => pingUntil(phase.signal, (ms) => observer.live('ping', ms)));
  const ping = summarizeLatency(pings.samples);
  observer.phaseFinished('ping', ping.meanMs);

  observer.phaseStarted('download', phaseMs);
  const download = await timed(phaseMs, (phase) =>
    underLoad(
      phase,
      measureDownload(info, phase, phaseMs, (bits) => observer.live('download', bits)),
    ),
  );
  observer.phaseFinished('download', download.result);

  observer.phaseStarted('upload', phaseMs);
  const upload = await timed(phaseMs, (phase) =>
    underLoad(
      phase,
      measureUpload(info, phase, phaseMs, (bits) => observer.live('upload', bits)),
    ),
  );
  observer.phaseFinished('upload', upload.result.bitsPerSecond);

  return {
    ping,
    pingLoss: { sent: pings.sent, lost: pings.lost },
    downloadBitsPerSecond: download.result,
    upload: upload.result,
    loaded: { download: loadedLatency(download.pings, ping), upload: loadedLatency(upload.pings, ping) },
  };
}

/** Runs `work` with a phase that ends after `phaseMs` (or earlier, if the work fails). */
async function timed<T>(phaseMs: number, work: (phase: AbortController) => Promise<T>): Promise<T> {
  const phase = new AbortController();
  const timer = setTimeout(() => phase.abort(), phaseMs);
  try {
    return await work(phase);
  } finally {
    clearTimeout(timer);
    phase.abort();
  }
}

/** Pings alongside `load` for as long as the phase lasts. */
async function underLoad<T>(phase: AbortController, load: Promise<T>): Promise<{ result: T; pings: number[] }> {
  const [result, pings] = await Promise.all([load, pingUntil(phase.signal)]);
  return { result, pings: pings.samples };
}
