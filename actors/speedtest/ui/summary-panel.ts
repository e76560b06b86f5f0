// The results panel shown when a test has finished.
import type { SpeedtestInfo } from '../browser.js';
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
