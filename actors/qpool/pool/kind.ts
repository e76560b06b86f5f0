import { declareActor } from '../../../src/actor/kind.js';
import { declareTopic } from '../../../src/actor/topic.js';
import type { PoolApi, PoolConfig, PublishedStatus } from './protocol.js';

export const poolActor = declareActor<PoolApi, PoolConfig>('pool', new URL('./index.js', import.meta.url));

/** The pool's status after every change, pushed to the fronts that answer /api/status. */
export const poolStatusTopic = declareTopic<PublishedStatus>('recv/pool-status');
