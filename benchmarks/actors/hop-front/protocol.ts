import type { ActorRef } from '../../../src/actor/kind.js';
import type { HopEchoApi } from '../hop-echo/protocol.js';

export interface HopFrontConfig {
  host: string;
  port: number;
  echo: ActorRef<HopEchoApi>;
}
