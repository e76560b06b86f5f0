// The three output forms of the client. JSON and compact carry exactly the spec's fields and forms;
// JSON adds the detail (jitter, min and median ping, loaded latency, bytes and seconds per phase).
import type { TransferResult } from './phases.js';
import { jitter, mean, median } from './statistics.js';
import { gradedLatencyMs, gradeUses, lossPercent, pingLostAfterMs, uses, type UseGrades } from '../site/grades.js';

export interface SpeedtestOutcome {
  server: string;
  serverName: string;
  pingRtts: number[];
  /** Pings of the ping phase sent, and those not answered in time. */
  pingsSent: number;
  pingsLost: number;
  download: TransferResult;
  upload: TransferResult;
  /** Round trips measured while the download and the upload ran. */
  loadedDownloadRtts: number[];
  loadedUploadRtts: number[];
}

export interface JsonReport {
  server: string;
  ping_ms: number;
  ping: string;
  download_bps: number;
  download: string;
  upload_bps: number;
  upload: string;
  jitter_ms: number;
  ping_min_ms: number;
  ping_median_ms: number;
  download_loaded_latency_ms: number | null;
  upload_loaded_latency_ms: number | null;
  loss_percent: number;
  grades: UseGrades;
  download_bytes: number;
  download_seconds: number;
  upload_bytes: number;
  upload_seconds: number;
}

const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;
/** Decimal megabits: 10^6 bits. */
export const mbps = (bitsPerSecond: number) => `${(bitsPerSecond / 1e6).toFixed(2)} Mbps`;
export const milliseconds = (ms: number) => `${ms.toFixed(1)} ms`;

export function jsonReport(outcome: SpeedtestOutcome): JsonReport {
  // The text is made from the number as reported, so that the two never disagree in the last digit.
  const pingMs = round(mean(outcome.pingRtts), 2);
  const loaded = (rtts: number[]) => (rtts.length === 0 ? null : round(median(rtts), 2));
  const jitterMs = round(jitter(outcome.pingRtts), 2);
  const pingMedianMs = round(median(outcome.pingRtts), 2);
  const downloadLoaded = loaded(outcome.loadedDownloadRtts);
  const uploadLoaded = loaded(outcome.loadedUploadRtts);
  const loss = lossPercent(outcome.pingsSent, outcome.pingsLost);
  return {
    server: outcome.server,
    ping_ms: pingMs,
    ping: milliseconds(pingMs),
    download_bps: Math.round(outcome.download.bitsPerSecond),
    download: mbps(Math.round(outcome.download.bitsPerSecond)),
    upload_bps: Math.round(outcome.upload.bitsPerSecond),
    upload: mbps(Math.round(outcome.upload.bitsPerSecond)),
    jitter_ms: jitterMs,
    ping_min_ms: round(Math.min(...outcome.pingRtts), 2),
    ping_median_ms: pingMedianMs,
    download_loaded_latency_ms: downloadLoaded,
    upload_loaded_latency_ms: uploadLoaded,
    loss_percent: loss,
    grades: gradeUses({ loadedLatencyMs: gradedLatencyMs(pingMedianMs, [downloadLoaded, uploadLoaded]), jitterMs, lossPercent: loss }),
    download_bytes: outcome.download.bytes,
    download_seconds: round(outcome.download.seconds, 3),
    upload_bytes: outcome.upload.bytes,
    upload_seconds: round(outcome.upload.seconds, 3),
  };
}

export function compactLine(outcome: SpeedtestOutcome): string {
  const pingMs = mean(outcome.pingRtts);
  return `ping ${pingMs.toFixed(1)} ms / down ${(outcome.download.bitsPerSecond / 1e6).toFixed(2)} Mbps / up ${(outcome.upload.bitsPerSecond / 1e6).toFixed(2)} Mbps`;
}

export interface Palette {
  bold(text: string): string;
  dim(text: string): string;
  accent(text: string): string;
  good(text: string): string;
}

export const plainPalette: Palette = { bold: (text) => text, dim: (text) => text, accent: (text) => text, good: (text) => text };

export const ansiPalette: Palette = {
  bold: (text) => `\x1b[1m${text}\x1b[22m`,
  dim: (text) => `\x1b[2m${text}\x1b[22m`,
  accent: (text) => `\x1b[36m${text}\x1b[39m`,
  good: (text) => `\x1b[32m${text}\x1b[39m`,
};

/** The summary of the normal (interactive) output. */
export function summaryLines(outcome: SpeedtestOutcome, palette: Palette): string[] {
  const report = jsonReport(outcome);
  const increase = (loaded: number | null) =>
    loaded === null ? 'n/a' : `${milliseconds(loaded)} (${loaded - report.ping_median_ms >= 0 ? '+' : ''}${(loaded - report.ping_median_ms).toFixed(1)} ms)`;
  return [
    '',
    palette.bold('  Result'),
    `  Ping       ${palette.good(report.ping.padStart(12))}   ${palette.dim(`min ${report.ping_min_ms.toFixed(1)} · median ${report.ping_median_ms.toFixed(1)} · jitter ${report.jitter_ms.toFixed(1)} ms`)}`,
    `  Download   ${palette.good(report.download.padStart(12))}   ${palette.dim(`${(report.download_bytes / 1e6).toFixed(1)} MB in ${report.download_seconds.toFixed(2)} s`)}`,
    `  Upload     ${palette.good(report.upload.padStart(12))}   ${palette.dim(`${(report.upload_bytes / 1e6).toFixed(1)} MB in ${report.upload_seconds.toFixed(2)} s`)}`,
    `  Latency under load   ${palette.dim('download')} ${increase(report.download_loaded_latency_ms)}   ${palette.dim('upload')} ${increase(report.upload_loaded_latency_ms)}`,
    `  Loss       ${palette.good(`${report.loss_percent.toFixed(1)} %`.padStart(12))}   ${palette.dim(`${outcome.pingsLost} of ${outcome.pingsSent} pings unanswered within ${pingLostAfterMs / 1000} s`)}`,
    `  Good for   ${uses.map((use) => `${use} ${palette.bold(report.grades[use])}`).join(' · ')}`,
  ];
}

/** `[██████░░░░]  62%  412.50 Mbps`; without a figure yet, `[█░░░░░░░░░]   4%  …` */
export function progressBar(fraction: number, bitsPerSecond: number | undefined, width = 30): string {
  const filled = Math.round(Math.min(1, Math.max(0, fraction)) * width);
  return `[${'█'.repeat(filled)}${'░'.repeat(width - filled)}] ${String(Math.round(fraction * 100)).padStart(3)}%  ${bitsPerSecond === undefined ? '…'.padEnd(12) : mbps(bitsPerSecond)}`;
}
