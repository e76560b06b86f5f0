// qpool's site config; the value record it serves is actors/qpool/values/record.ts, the status actors/qpool/pool/protocol.ts.
import type { ActorRef } from '../../../src/actor/kind.js';
import type { PoolApi } from '../pool/protocol.js';

export interface QpoolSite {
  /** The pool actor values are taken from. */
  pool: ActorRef<PoolApi>;
  /** Demo values (not quantum) may be in the pool: /api/status says so with `X-Quantum-Demo: 1`. */
  demo: boolean;
}

/** The api_version of GET /api/version (src/http/version-route.ts): raised on an incompatible change of this API. */
export const qpoolApiVersion = 1;
