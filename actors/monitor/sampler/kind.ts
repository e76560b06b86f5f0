import { declareActor } from '../../../src/actor/kind.js';
import { declareTopic } from '../../../src/actor/topic.js';
import type { SamplerApi, SamplerConfig, SnapshotJson } from './protocol.js';

export const samplerActor = declareActor<SamplerApi, SamplerConfig>('sampler', new URL('./index.js', import.meta.url));

/** Every full snapshot while someone watches, to every monitor front. */
export const snapshotTopic = declareTopic<SnapshotJson>('monitor/snapshots');
