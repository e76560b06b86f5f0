// The receive loop: run the command, feed what it prints to the parser, hand valid values to the
// pool, and run it again. A run that brings nothing back at once (an idle link, or a channel name or
// password mismatch, which looks the same) is logged and followed by a growing pause, so an idle
// diode never spins a core.
import type { Clock } from '../../src/actor/clock.js';
import type { Logger } from '../../src/log/record.js';
import type { IngestResult } from '../pool/protocol.js';
import { entryCount } from '../pool/value-batch.js';
import type { LineParser } from './line-parser.js';
import type { ReceiveRun } from './receive-command.js';

export interface ReceiverDeps {
  run(onChunk: (chunk: Buffer) => void): ReceiveRun;
  /** Hands a value batch to the pool. */
  ingest(values: Buffer): Promise<IngestResult>;
  parser: LineParser;
  clock: Clock;
  log: Logger;
}

export interface ReceiverTiming {
  quickEmptyMs: number;
  initialBackoffMs: number;
  maxBackoffMs: number;
}

/** Damaged lines logged one by one per run; the rest are counted in the run's summary. */
const damagedLinesLogged = 5;

export class Receiver {
  private stopped = false;
  private current: ReceiveRun | undefined;
  private backoffMs = 0;
  private quietRuns = 0;
  private damagedThisRun = 0;
  private readonly totals = { values: 0, duplicates: 0, damaged: 0 };
  private ingesting: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly timing: ReceiverTiming,
    private readonly deps: ReceiverDeps,
  ) {}

  /** Runs until stop(); never rejects. */
  async loop(): Promise<void> {
    while (!this.stopped) {
      this.damagedThisRun = 0;
      const before = { ...this.totals };
      this.current = this.deps.run((chunk) => void this.accept(chunk));
      const outcome = await this.current.ended;
      this.current = undefined;
      await this.ingesting;
      if (this.stopped) return;
      const values = this.totals.values - before.values;
      const failed = outcome.error !== undefined || (outcome.code !== 0 && outcome.code !== null) || (outcome.signal !== null && outcome.signal !== undefined);
      if (failed) {
        const how = outcome.error ?? (outcome.signal === null ? `exit code ${outcome.code}` : `signal ${outcome.signal}`);
        this.deps.log.warn(`the receive command failed: ${how}${outcome.stderr === '' ? '' : `: ${outcome.stderr.replace(/\s+/g, ' ')}`}`);
      }
      if (outcome.bytes > 0) {
        this.backoffMs = 0;
        this.quietRuns = 0;
        const duplicates = this.totals.duplicates - before.duplicates;
        const damaged = this.totals.damaged - before.damaged;
        this.deps.log.info(`received ${values} values`, { values, duplicates, damagedLines: damaged, bytes: outcome.bytes });
        if (!failed) continue;
      } else if (!failed && outcome.durationMs < this.timing.quickEmptyMs) {
        // The first of a quiet spell is worth a line; the rest would fill the log of an idle link.
        const message = `receive command returned in ${Math.round(outcome.durationMs)}ms with no data`;
        if (this.quietRuns++ === 0) this.deps.log.info(message);
        else this.deps.log.debug(message);
      } else if (!failed) {
        continue;
      }
      this.backoffMs = Math.min(this.backoffMs === 0 ? this.timing.initialBackoffMs : this.backoffMs * 2, this.timing.maxBackoffMs);
      await this.deps.clock.sleep(this.backoffMs);
    }
  }

  /** Bytes from the diode: from the command's output, or from a loopback sender. */
  accept(chunk: Buffer): Promise<void> {
    const { values, damaged } = this.deps.parser.feed(chunk);
    for (const reason of damaged) {
      this.totals.damaged++;
      if (this.damagedThisRun++ < damagedLinesLogged) this.deps.log.warn(`skipped a damaged line: ${reason}`);
    }
    const count = entryCount(values);
    if (count === 0) return Promise.resolve();
    const ingest = this.deps.ingest(values).then(
      (result) => {
        this.totals.values += result.added;
        this.totals.duplicates += result.duplicates;
        if (result.duplicates > 0) this.deps.log.debug(`ignored ${result.duplicates} values already in the pool or served`);
      },
      (error: unknown) => this.deps.log.error(`${count} values did not reach the pool: ${String(error)}`),
    );
    this.ingesting = Promise.all([this.ingesting, ingest]);
    return ingest;
  }

  stop(): void {
    this.stopped = true;
    this.current?.kill();
  }
}
