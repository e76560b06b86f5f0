import { MessageChannel } from 'node:worker_threads';
import test from 'ava';
import { Mailbox } from '../../src/actor/mailbox.js';
import type { ActorToSupervisor, SupervisorToActor } from '../../src/actor/protocol.js';

test('a mailbox delivers typed messages across a real channel', async (t) => {
  const { port1, port2 } = new MessageChannel();
  const actorSide = new Mailbox<SupervisorToActor, ActorToSupervisor>(port1);
  const supervisorSide = new Mailbox<ActorToSupervisor, SupervisorToActor>(port2);
  const received = new Promise<ActorToSupervisor>((resolve) => supervisorSide.listen(resolve));
  actorSide.post({ type: 'ready', info: { urls: ['http://127.0.0.1:1/'] } });
  t.deepEqual(await received, { type: 'ready', info: { urls: ['http://127.0.0.1:1/'] } });
  actorSide.close();
  supervisorSide.close();
});

// Type-level checks: `tsc` fails the build if any of these lines compiles.
export function wrongMessagesDoNotCompile(box: Mailbox<SupervisorToActor, ActorToSupervisor>): void {
  // @ts-expect-error a ready message carries its info
  box.post({ type: 'ready' });
  // @ts-expect-error no such message type
  box.post({ type: 'reddy', info: {} });
  // @ts-expect-error the supervisor's messages cannot be sent by an actor
  box.post({ type: 'stop', graceMs: 10 });
}
