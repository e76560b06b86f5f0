import { declareActor, type NoApi } from '../../../src/actor/kind.js';

export const eventPublisherActor = declareActor<NoApi, { subscribers: number }>('event-publisher', new URL('./index.js', import.meta.url));
