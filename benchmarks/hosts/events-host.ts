// The supervisor process the events benchmark measures: one publishing front and four subscribers.
import { actorSpec } from '../../src/actor/kind.js';
import { runSupervisor } from '../../src/cli/run-host.js';
import { supervisorSchema } from '../../src/config/host.js';
import { eventPublisherActor } from '../actors/event-publisher/kind.js';
import { benchAckTopic, benchEventTopic, eventSubscriberActor } from '../actors/event-subscriber/kind.js';

export const subscriberCount = 4;
const specs = [
  ...Array.from({ length: subscriberCount }, (_, index) =>
    actorSpec(eventSubscriberActor, { ref: `subscriber#${index + 1}`, role: 'bench', config: {}, instance: index + 1 }),
  ),
  actorSpec(eventPublisherActor, {
    ref: 'publisher',
    role: 'bench',
    config: { subscribers: subscriberCount },
    front: true,
    topics: [benchEventTopic, benchAckTopic],
  }),
];
await runSupervisor(specs, supervisorSchema.parse({}), { json: false, quiet: true, colour: false }, ({ urls, startupMs }) => {
  process.stdout.write(`${JSON.stringify({ urls, startupMs })}\n`);
});
