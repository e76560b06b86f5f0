// What qpool's page (ui/qpool/) shares with the recv role: the pool's status.
export type { PoolStatus } from './pool/protocol.js';
