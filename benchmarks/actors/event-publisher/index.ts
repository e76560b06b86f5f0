// A front whose GET /run?count=N publishes N events as fast as the channel takes them and answers
// once every subscriber has acknowledged the last one, with the time that took.
import { runActor } from '../../../src/actor/worker-entry.js';
import { startFront } from '../../../src/http/front.js';
import { benchAckTopic, benchEventTopic } from '../event-subscriber/kind.js';
import type { BenchAck } from '../event-subscriber/protocol.js';
import { eventPublisherActor } from './kind.js';

/** Events published per turn of the event loop; each turn's events cross to the supervisor as one batch. */
const perTurn = 2000;

runActor(eventPublisherActor, {
  start(context) {
    let run = 0;
    const acks = new Map<number, BenchAck[]>();
    const ackWaiters = new Map<number, (acks: BenchAck[]) => void>();
    context.subscribe(benchAckTopic, (ack) => {
      const list = acks.get(ack.run) ?? [];
      list.push(ack);
      acks.set(ack.run, list);
      if (list.length === context.config.subscribers) ackWaiters.get(ack.run)?.(list);
    });
    return startFront(context, { host: '127.0.0.1', port: 0 }, (router) => {
      router.get('/run', async (request, reply) => {
        const count = Number(request.query.get('count') ?? '100000');
        const thisRun = ++run;
        const acknowledged = new Promise<BenchAck[]>((resolve) => ackWaiters.set(thisRun, resolve));
        const startedAt = performance.now();
        for (let seq = 0; seq < count; seq++) {
          context.publish(benchEventTopic, { run: thisRun, seq, count });
          if (seq % perTurn === perTurn - 1) await new Promise((resolve) => setImmediate(resolve));
        }
        const received = await acknowledged;
        reply.json(200, { ms: performance.now() - startedAt, received: received.map((ack) => ack.received) });
      });
    });
  },
});
