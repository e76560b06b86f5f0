// The results panel shown when a test has finished.
import { gradedLatencyMs, gradeUses, lossPercent, uses, type ResultInput, type SpeedtestInfo } from '../browser.js';
import { bufferbloatGrade } from './bufferbloat.js';
import { byId } from '../../../ui/common/dom.js';
import { formatIncrease, formatMbps, formatMs } from './format.js';
import type { LoadedLatency } from './latency.js';
import { streamCount } from './method.js';
import type { TestResult } from './speed-test.js';

const countedByCaption = {
  server: 'as the server received it',
  // Too few uploads completed within the phase for the server's count to cover it.
  browser: 'as the browser sent it',
} as const;

export class SummaryPanel {
  private readonly panel = byId('summary');
  private readonly time = byId<HTMLTimeElement>('summary-time');
  private readonly download = byId('result-download');
  private readonly upload = byId('result-upload');
  private readonly uploadCaption = byId('result-upload-caption');
  private readonly ping = byId('result-ping');
  private readonly pingCaption = byId('result-ping-caption');
  private readonly jitter = byId('result-jitter');
  private readonly grade = byId('bloat-grade');
  private readonly loaded = {
    download: { median: byId('loaded-download'), increase: byId('loaded-download-increase') },
    upload: { median: byId('loaded-upload'), increase: byId('loaded-upload-increase') },
  };
  private readonly loss = byId('result-loss');
  private readonly lossCount = byId('result-loss-count');
  private readonly useGrades = { streaming: byId('grade-streaming'), gaming: byId('grade-gaming'), calls: byId('grade-calls') };
  private readonly server = byId('summary-server');
  private readonly method = byId('summary-method');

  show(result: TestResult, info: SpeedtestInfo, finishedAt: Date): void {
    this.time.textContent = finishedAt.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
    this.time.dateTime = finishedAt.toISOString();
    this.download.textContent = formatMbps(result.downloadBitsPerSecond);
    this.upload.textContent = formatMbps(result.upload.bitsPerSecond);
    this.uploadCaption.textContent = countedByCaption[result.upload.countedBy];
    const { ping } = result;
    this.ping.textContent = formatMs(ping.meanMs);
    this.pingCaption.textContent = `min ${formatMs(ping.minMs)} · median ${formatMs(ping.medianMs)}`;
    this.jitter.textContent = formatMs(ping.jitterMs);
    this.showLoaded('download', result.loaded.download);
    this.showLoaded('upload', result.loaded.upload);
    this.showGrade(result);
    const input = resultInput(result);
    this.loss.textContent = `${input.loss_percent.toFixed(1)} %`;
    this.lossCount.textContent = `${result.pingLoss.lost} of ${result.pingLoss.sent}`;
    const grades = gradeUses({
      loadedLatencyMs: gradedLatencyMs(input.ping_ms, [input.download_loaded_latency_ms, input.upload_loaded_latency_ms]),
      jitterMs: input.jitter_ms,
      lossPercent: input.loss_percent,
    });
    for (const use of uses) {
      this.useGrades[use].dataset.grade = grades[use];
      this.useGrades[use].querySelector('strong')!.textContent = grades[use];
    }
    this.server.textContent = info.name;
    this.method.textContent = `${info.test_duration} s per phase · ${streamCount} streams · version ${info.version}`;
    this.panel.hidden = false;
  }

  hide(): void {
    this.panel.hidden = true;
  }

  private showLoaded(phase: 'download' | 'upload', latency: LoadedLatency | undefined): void {
    const { median, increase } = this.loaded[phase];
    median.textContent = latency === undefined ? 'no answer' : `${formatMs(latency.medianMs)} ms`;
    increase.textContent = latency === undefined ? '' : formatIncrease(latency.increaseMs);
  }

  /** Graded by the worse of the two phases; no answer at all under load is the worst there is. */
  private showGrade(result: TestResult): void {
    const increases = [result.loaded.download, result.loaded.upload].map((latency) => latency?.increaseMs ?? Infinity);
    const { grade, level } = bufferbloatGrade(Math.max(...increases));
    this.grade.textContent = grade;
    this.grade.dataset.level = level;
  }
}

/** The figures of a finished test as the server keeps them (POST /api/results) and as the grades read them. */
export function resultInput(result: TestResult): ResultInput {
  return {
    source: 'page',
    download_bps: Math.round(result.downloadBitsPerSecond),
    upload_bps: Math.round(result.upload.bitsPerSecond),
    ping_ms: round2(result.ping.meanMs),
    jitter_ms: round2(result.ping.jitterMs),
    loss_percent: lossPercent(result.pingLoss.sent, result.pingLoss.lost),
    download_loaded_latency_ms: result.loaded.download === undefined ? null : round2(result.loaded.download.medianMs),
    upload_loaded_latency_ms: result.loaded.upload === undefined ? null : round2(result.loaded.upload.medianMs),
  };
}

const round2 = (value: number) => Math.round(value * 100) / 100;
