// What the soak asks of each role: a process started under a steady load, what to sample, and a
// clean stop.
import type { Tally } from './load.js';
import type { SoakedProcess } from './sampler.js';

export interface SoakRole {
  target: SoakedProcess;
  /** The load in words, for the report. */
  load: string;
  /** Runs the load until `signal` aborts, tallying each operation's outcome. */
  run(signal: AbortSignal, tally: Tally): Promise<void>;
  /** Anything the role's process or its helpers printed that explains a failure. */
  log(): string;
  stop(): Promise<void>;
}

/** Starts a role's process (and what it talks to) with its files in `dir`. */
export type StartRole = (dir: string) => Promise<SoakRole>;
