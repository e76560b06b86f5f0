// What one run of the qpool-serve benchmark measured, handed from the run to its report, and the
// medians the report takes of it.
import { median } from '../harness.js';
import type { OpRate } from '../anchors/durable-writes.js';
import type { Compaction } from './in-process.js';
import type { CpuLoad, RoundFigures } from './round.js';
import type { Case } from './serve-process.js';

/** RSS of a serve process (bytes) and its thread count at each step. */
export interface Memory {
  empty: number;
  emptyThreads: number;
  settledThreads: number;
  peak: number;
  full: number;
  settled: number;
  afterRounds: number;
}

export interface ServerResults {
  spec: Case;
  rounds: RoundFigures[];
  memory: Memory;
}

export interface QpoolServeRun {
  seconds: number;
  rounds: number;
  servers: ServerResults[];
  /** Anchor (a), the spec's design, and (b), a bare fdatasync'd append, each round. */
  rewrites: OpRate[];
  appends: OpRate[];
  /** The HTTP ceiling, nginx's (the external ceiling), qpool's /api/version, and anchor (d), each round. */
  ceilingRounds: CpuLoad[];
  nginxRounds: CpuLoad[];
  versionRounds: CpuLoad[];
  valueRounds: CpuLoad[];
  compactions: Compaction[];
  /** Live bytes of a full pool in the pool thread. */
  live: number;
  /** The machine's load average when the rounds began. */
  loadBefore: number;
}

export function medianOf(rounds: RoundFigures[], pick: (round: RoundFigures) => number): number {
  return median(rounds.map(pick));
}

/** The HTTP ceiling's values/s: what every case is a share of. */
export function ceilingRate(run: QpoolServeRun): number {
  return median(run.ceilingRounds.map((entry) => entry.answeredPerSecond));
}

/** nginx's requests/s answering from memory: the external ceiling beside ours. */
export function nginxCeilingRate(run: QpoolServeRun): number {
  return median(run.nginxRounds.map((entry) => entry.answeredPerSecond));
}
