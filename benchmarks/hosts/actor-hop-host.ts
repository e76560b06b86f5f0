// The supervisor process the actor-hop and cold-start benchmarks measure: one front and one actor
// behind it, as a role would run them.
import { actorRef, actorSpec } from '../../src/actor/kind.js';
import { runSupervisor } from '../../src/cli/run-host.js';
import { supervisorSchema } from '../../src/config/host.js';
import { hopEchoActor } from '../actors/hop-echo/kind.js';
import { hopFrontActor } from '../actors/hop-front/kind.js';

const echo = actorRef(hopEchoActor, 'hop-echo');
const specs = [
  actorSpec(hopEchoActor, { ref: echo, role: 'bench', config: {} }),
  actorSpec(hopFrontActor, { ref: 'hop-front', role: 'bench', config: { host: '127.0.0.1', port: 0, echo }, links: [echo], front: true }),
];
await runSupervisor(specs, supervisorSchema.parse({}), { json: false, quiet: true, colour: false }, ({ urls, startupMs }) => {
  process.stdout.write(`${JSON.stringify({ urls, startupMs })}\n`);
});
