// The diode sender: takes batches of JSON lines from the collector and pushes each across the diode,
// by running `diode.send_command` with the batch on its standard input, or (loopback) by handing it
// to a diode receiver in the same process.

import type { ActorRef } from '../../../src/actor/kind.js';

export interface DiodeSenderConfig {
  /** Argument list, run directly: no shell, no placeholders. Absent in loopback mode. */
  command?: string[];
  /** The diode-receiver actor to hand batches to instead of running a command. */
  loopbackReceiver?: ActorRef<DiodeLoopbackApi>;
  /** How long one transfer may take (`diode.timeout_seconds`). */
  timeoutMs: number;
  /** Attempts per batch before it is dropped (`collect.retry_limit`). */
  retryLimit: number;
  /** Wait before the second attempt; it doubles for each further one, up to a minute. */
  retryDelayMs: number;
}

export interface DiodeSenderApi {
  /** Queues a batch (`count` values as JSON lines) and returns; the transfer and its retries follow. */
  send(lines: string, count: number): Promise<void>;
}

/** What a diode receiver offers the loopback sender: the same bytes a receive command would print. */
export interface DiodeLoopbackApi {
  receive(chunk: string): Promise<void>;
}
