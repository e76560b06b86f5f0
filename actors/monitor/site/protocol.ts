// hostwatch's site config; the snapshot shapes it serves are in actors/monitor/sampler/protocol.ts.
import type { ActorRef } from '../../../src/actor/kind.js';
import type { SamplerApi } from '../sampler/protocol.js';

export interface MonitorSite {
  /** The sampler actor to ask for snapshots. */
  sampler: ActorRef<SamplerApi>;
  /** How often the sampler publishes a snapshot while someone watches. */
  intervalMs: number;
}

/** The api_version of GET /api/version (src/http/version-route.ts): raised on an incompatible change of this API. */
export const monitorApiVersion = 1;
