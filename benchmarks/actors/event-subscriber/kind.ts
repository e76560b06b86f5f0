import { declareActor, type NoApi } from '../../../src/actor/kind.js';
import { declareTopic } from '../../../src/actor/topic.js';
import type { BenchAck, BenchEvent } from './protocol.js';

export const eventSubscriberActor = declareActor<NoApi, Record<string, never>>('event-subscriber', new URL('./index.js', import.meta.url));
export const benchEventTopic = declareTopic<BenchEvent>('bench/events');
export const benchAckTopic = declareTopic<BenchAck>('bench/acks');
