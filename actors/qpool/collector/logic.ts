// The collector's schedule: every source is polled once at start, then every `interval`, each on its
// own timer because the providers' limits differ (keyed: ~100 requests a month; legacy: one a minute,
// about two seconds per kilobyte). A source whose request is still running skips its next turn.
import type { Clock } from '../../../src/actor/clock.js';
import type { Logger } from '../../../src/log/record.js';
import type { SourceSettings } from './protocol.js';
import { readProviderAnswer, requestUrl, type ProviderSource } from './provider.js';
import type { TextResponse } from './fetch-text.js';
import { sliceValues, valueBytes, type ValueBatch } from './values.js';
import type { CollectorFigures } from './collector-figures.js';

export interface CollectorDeps {
  clock: Clock;
  fetchText(url: string, headers: Record<string, string>, timeoutMs: number): Promise<TextResponse>;
  randomBytes(size: number): Uint8Array;
  ledger: { lastRequest(): Promise<number | undefined>; record(at: number): Promise<void> };
  /** Hands a batch to the diode sender; never waits for the transfer. */
  send(batch: ValueBatch): void;
  log: Logger;
  /** Told what each request gave, when metrics are on. */
  figures?: CollectorFigures;
}

type PollOutcome = { ok: true; batch: ValueBatch } | { ok: false; reason: string } | { ok: 'skipped' };

export class Collector {
  private readonly busy = new Set<SourceSettings>();
  private readonly cancels: (() => void)[] = [];
  private stopped = false;

  constructor(
    private readonly sources: readonly SourceSettings[],
    private readonly timeoutMs: number,
    private readonly deps: CollectorDeps,
  ) {}

  /** Polls every source that is due now as one cycle, and schedules the rest. */
  async start(): Promise<void> {
    const dueNow: SourceSettings[] = [];
    for (const settings of this.sources) {
      const delayMs = await this.firstDelay(settings);
      if (delayMs === 0) {
        dueNow.push(settings);
        this.cancels.push(this.deps.clock.every(settings.intervalMs, () => void this.cycle([settings])));
      } else {
        this.deps.log.info(
          `${settings.source}: the last request was less than ${settings.intervalMs / 1000}s ago; the next is in ${Math.ceil(delayMs / 1000)}s`,
        );
        void this.deps.clock.sleep(delayMs).then(() => {
          if (this.stopped) return;
          this.cancels.push(this.deps.clock.every(settings.intervalMs, () => void this.cycle([settings])));
          void this.cycle([settings]);
        });
      }
    }
    await this.cycle(dueNow);
  }

  stop(): void {
    this.stopped = true;
    for (const cancel of this.cancels.splice(0)) cancel();
  }

  /** Polls `sources` together; when every one that was tried fails, says so in one line. */
  async cycle(sources: readonly SourceSettings[]): Promise<void> {
    if (this.stopped || sources.length === 0) return;
    const outcomes = await Promise.all(sources.map((settings) => this.poll(settings)));
    const failed = sources.filter((_settings, index) => outcomes[index]?.ok === false);
    if (failed.length > 0 && failed.length === sources.length) {
      this.deps.log.error(`every ANU source tried failed: ${failed.map((settings) => settings.source).join(', ')}`);
    }
  }

  private async firstDelay(settings: SourceSettings): Promise<number> {
    if (settings.source !== 'keyed') return 0;
    const last = await this.deps.ledger.lastRequest();
    if (last === undefined) return 0;
    return Math.max(0, last + settings.intervalMs - this.deps.clock.now());
  }

  private async poll(settings: SourceSettings): Promise<PollOutcome> {
    if (this.busy.has(settings)) {
      this.deps.log.warn(`${settings.source}: the previous request is still running; skipping this turn`);
      return { ok: 'skipped' };
    }
    this.busy.add(settings);
    try {
      const outcome = await this.fetchValues(settings);
      if (outcome.ok === true) this.handOver(settings, outcome.batch);
      else if (outcome.ok === false) {
        this.deps.figures?.failed(settings.source);
        this.deps.log.warn(`${settings.source} request failed: ${outcome.reason}`);
      }
      return outcome;
    } finally {
      this.busy.delete(settings);
    }
  }

  private async fetchValues(settings: SourceSettings): Promise<PollOutcome> {
    if (settings.source === 'demo') {
      return { ok: true, batch: sliceValues(this.deps.randomBytes(settings.length * valueBytes), 'demo', new Date(this.deps.clock.now())) };
    }
    const source: ProviderSource = settings.source;
    const headers: Record<string, string> = { accept: 'application/json' };
    if (source === 'keyed') {
      headers['x-api-key'] = settings.apiKey ?? '';
      try {
        await this.deps.ledger.record(this.deps.clock.now());
      } catch (error) {
        return {
          ok: false,
          reason: `not sent, because it could not be recorded in the keyed request ledger (${String(error)}); set QPOOL_STATE_DIR to a writable directory`,
        };
      }
    }
    let response: TextResponse;
    try {
      response = await this.deps.fetchText(requestUrl(settings), headers, this.timeoutMs);
    } catch (error) {
      return { ok: false, reason: describeFetchError(error, this.timeoutMs) };
    }
    const answer = readProviderAnswer(source, settings, response.status, response.body);
    if (!answer.ok) return answer;
    return { ok: true, batch: sliceValues(answer.bytes, source, new Date(this.deps.clock.now())) };
  }

  private handOver(settings: SourceSettings, batch: ValueBatch): void {
    const bytes = batch.count * valueBytes + batch.discardedBytes;
    const discarded = batch.discardedBytes === 0 ? '' : `; discarded the last ${batch.discardedBytes} bytes (${bytes} is not a multiple of ${valueBytes})`;
    this.deps.log.info(`${settings.source}: ${batch.count} values from ${bytes} bytes${discarded}`, {
      source: settings.source,
      values: batch.count,
      discardedBytes: batch.discardedBytes,
    });
    this.deps.figures?.collected(settings.source, batch.count);
    if (batch.count > 0) this.deps.send(batch);
  }
}

function describeFetchError(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError'))
    return `no response within ${timeoutMs / 1000}s (anu.timeout_seconds)`;
  const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error instanceof Error ? error.message : String(error)}${cause}`;
}
