// What qpool's page (ui/) shares with the recv role: the pool's status.
export type { PoolStatus } from './pool/protocol.js';
