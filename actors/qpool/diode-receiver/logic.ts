// The receive loop: run the command, feed what it prints to the parser, hand valid values to the
// pool, and run it again.
//
// What the command prints has left the diode for good, so it is taken only when the pool can keep
// it: before every run the pool is asked whether it can store values (it answers once it has
// loaded, and with a pool file once its files take writes); while it cannot, the command is not
// run and the values wait in the diode. Should the pool go away during a run, the command is ended,
// and what it printed is held here and handed over again once the pool is back (values the pool
// already had are ignored as duplicates, so handing a batch over twice is harmless).
//
// A run that brings no new value (nothing at all: an idle link, or a channel name or password
// mismatch, which looks the same; or only values already seen: a replayed file) is followed by a
// growing pause, so neither an idle diode nor a replaying one spins a core or floods the log.
import type { Clock } from '../../../src/actor/clock.js';
import type { Logger } from '../../../src/log/record.js';
import type { IngestResult } from '../pool/protocol.js';
import { entryCount } from '../values/batch.js';
import { DamagedLineLog } from './damaged-lines.js';
import type { LineParser } from './line-parser.js';
import type { ReceiveRun } from './receive-command.js';

export interface ReceiverDeps {
  run(onChunk: (chunk: Buffer) => void): ReceiveRun;
  /** Hands a value batch to the pool; the batch stays the caller's (it is copied, not transferred). */
  ingest(values: Buffer): Promise<IngestResult>;
  /** Whether the pool can store values now; rejects when the pool is not there. */
  poolReady(): Promise<boolean>;
  parser: LineParser;
  clock: Clock;
  log: Logger;
}

export interface ReceiverTiming {
  quickEmptyMs: number;
  initialBackoffMs: number;
  maxBackoffMs: number;
}

/** At most one damaged-line warning per this interval (damaged-lines.ts). */
export const damagedLineLogIntervalMs = 10_000;

export class Receiver {
  private stopped = false;
  private current: ReceiveRun | undefined;
  private backoffMs = 0;
  /** Runs in a row that brought no new value: the first of a spell is logged at info, the rest at debug. */
  private quietRuns = 0;
  /** Whether the last check found the pool unable to store: the first of a spell is logged. */
  private poolWasAway = false;
  private readonly totals = { values: 0, duplicates: 0, damaged: 0 };
  private ingesting: Promise<unknown> = Promise.resolve();
  /** Batches read from the diode that the pool did not take: handed over again before the next run. */
  private held: Buffer[] = [];
  private readonly damagedLines: DamagedLineLog;

  constructor(
    private readonly timing: ReceiverTiming,
    private readonly deps: ReceiverDeps,
  ) {
    this.damagedLines = new DamagedLineLog(damagedLineLogIntervalMs, deps);
  }

  /** Runs until stop(); never rejects. */
  async loop(): Promise<void> {
    while (!this.stopped) {
      if (!(await this.poolCanStore()) || !(await this.handOverHeld())) {
        await this.deps.clock.sleep(this.timing.initialBackoffMs);
        continue;
      }
      if (this.stopped) return;
      const before = { ...this.totals };
      this.current = this.deps.run((chunk) => this.fromRun(chunk));
      const outcome = await this.current.ended;
      this.current = undefined;
      await this.ingesting;
      if (this.stopped) return;
      const values = this.totals.values - before.values;
      const duplicates = this.totals.duplicates - before.duplicates;
      const damaged = this.totals.damaged - before.damaged;
      const failed = outcome.error !== undefined || (outcome.code !== 0 && outcome.code !== null) || (outcome.signal !== null && outcome.signal !== undefined);
      if (failed && this.held.length === 0) {
        const how = outcome.error ?? (outcome.signal === null ? `exit code ${outcome.code}` : `signal ${outcome.signal}`);
        this.deps.log.warn(`the receive command failed: ${how}${outcome.stderr === '' ? '' : `: ${outcome.stderr.replace(/\s+/g, ' ')}`}`);
      }
      if (values > 0) {
        this.backoffMs = 0;
        this.quietRuns = 0;
        this.deps.log.info(`received ${values} values`, { values, duplicates, damagedLines: damaged, bytes: outcome.bytes });
        if (!failed) continue;
      } else if (this.held.length > 0) {
        // The pool went away during the run; the next turn waits for it.
        continue;
      } else if (outcome.bytes > 0) {
        this.quiet(`receive command returned ${outcome.bytes} bytes and no new value (${duplicates} already seen, ${damaged} damaged lines)`, {
          duplicates,
          damagedLines: damaged,
          bytes: outcome.bytes,
        });
      } else if (!failed && outcome.durationMs < this.timing.quickEmptyMs) {
        this.quiet(`receive command returned in ${Math.round(outcome.durationMs)}ms with no data`);
      } else if (!failed) {
        // A command that waited for data and ended without any (a long poll): run it again at once.
        continue;
      }
      this.backoffMs = Math.min(this.backoffMs === 0 ? this.timing.initialBackoffMs : this.backoffMs * 2, this.timing.maxBackoffMs);
      await this.deps.clock.sleep(this.backoffMs);
    }
  }

  /** Bytes from a loopback sender; rejects if the pool did not take them, and the sender sends them again. */
  async accept(chunk: Buffer): Promise<void> {
    const values = this.parse(chunk);
    if (values !== undefined) await this.store(values);
  }

  stop(): void {
    this.stopped = true;
    this.current?.kill();
  }

  /** Bytes printed by the receive command. */
  private fromRun(chunk: Buffer): void {
    const values = this.parse(chunk);
    if (values === undefined) return;
    const stored = this.store(values).catch((error: unknown) => {
      this.held.push(values);
      // Whatever the command prints from here would have to be held too: stop taking it off the diode.
      this.current?.kill();
      this.deps.log.warn(`the pool did not take ${entryCount(values)} values (${messageOf(error)}); they are held and handed over once it can store them`);
    });
    this.ingesting = Promise.all([this.ingesting, stored]);
  }

  /** The valid values in a chunk, as a batch; undefined when there are none. */
  private parse(chunk: Buffer): Buffer | undefined {
    const { values, damaged } = this.deps.parser.feed(chunk);
    for (const reason of damaged) {
      this.totals.damaged++;
      this.damagedLines.skipped(reason);
    }
    return entryCount(values) === 0 ? undefined : values;
  }

  private async store(values: Buffer): Promise<void> {
    const result = await this.deps.ingest(values);
    this.totals.values += result.added;
    this.totals.duplicates += result.duplicates;
    if (result.duplicates > 0) this.deps.log.debug(`ignored ${result.duplicates} values already in the pool or served`);
  }

  /** Asks the pool; logs the first refusal of a spell, and the end of it. */
  private async poolCanStore(): Promise<boolean> {
    let ready: boolean;
    let why = 'its files do not take writes';
    try {
      ready = await this.deps.poolReady();
    } catch (error) {
      ready = false;
      why = messageOf(error);
    }
    if (ready && this.poolWasAway) this.deps.log.info('the pool can store values again; receiving resumes');
    if (!ready && !this.poolWasAway)
      this.deps.log.warn(`the pool cannot store values (${why}); the receive command is not run until it can, and values wait in the diode`);
    this.poolWasAway = !ready;
    return ready;
  }

  /** Hands the held batches over; false if the pool refused one (it and the rest stay held). */
  private async handOverHeld(): Promise<boolean> {
    while (this.held.length > 0) {
      const batch = this.held[0]!;
      try {
        await this.store(batch);
      } catch {
        return false;
      }
      this.held.shift();
      this.deps.log.info(`handed ${entryCount(batch)} held values to the pool`);
    }
    return true;
  }

  private quiet(message: string, fields?: Record<string, number>): void {
    // The first of a quiet spell is worth a line; the rest would fill the log of an idle link.
    if (this.quietRuns++ === 0) this.deps.log.info(message, fields);
    else this.deps.log.debug(message, fields);
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
