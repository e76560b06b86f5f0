// The collector actor: polls the ANU APIs, each source on its own schedule, and hands every batch of
// values to the diode sender as JSON lines.
import type { ActorRef } from '../../../src/actor/kind.js';
import type { DiodeSenderApi } from '../diode-sender/protocol.js';
import type { ValueSource } from '../values/record.js';

/** A source the collector polls; `demo` draws from the OS CSPRNG instead of a provider. */
export interface SourceSettings {
  source: ValueSource;
  /** Provider URL without the query; empty for demo. */
  url: string;
  /** Blocks per request (`length`), or values per cycle for demo. */
  length: number;
  /** Keyed: 16-bit words per block; legacy: bytes per block; demo: 128. */
  size: number;
  intervalMs: number;
  /** Keyed only. */
  apiKey?: string;
}

export interface CollectorConfig {
  sources: SourceSettings[];
  /** How long a provider response may take (`anu.timeout_seconds`). */
  timeoutMs: number;
  /** The diode-sender actor batches go to. */
  sender: ActorRef<DiodeSenderApi>;
  /** Where the time of the last keyed request is kept, so restarts do not spend the monthly quota. */
  ledgerFile: string;
}
