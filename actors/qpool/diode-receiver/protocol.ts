// The diode receiver: runs `server.receive_command` over and over (or takes batches from a loopback
// sender in the same process), parses the arriving JSON lines and hands valid values to the pool.

import type { ActorRef } from '../../../src/actor/kind.js';
import type { PoolApi } from '../pool/protocol.js';

export interface DiodeReceiverConfig {
  /** Argument list, run directly; absent in loopback mode. */
  command?: string[];
  /** The pool actor values go to. */
  pool: ActorRef<PoolApi>;
  /** Accept values tagged `demo` (beta builds' loopback demo). */
  acceptDemo: boolean;
  /** A run shorter than this that brought nothing is "returned at once": logged, then backed off. */
  quickEmptyMs: number;
  /** First wait after a quick empty run or a failure; it doubles up to `maxBackoffMs`. */
  initialBackoffMs: number;
  maxBackoffMs: number;
}
