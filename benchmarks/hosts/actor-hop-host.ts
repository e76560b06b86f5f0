// The supervisor process the actor-hop and cold-start benchmarks measure: one front and one actor
// behind it, as a role would run them.
import type { ActorSpec } from '../../src/actor/spec.js';
import { runSupervisor } from '../../src/cli/run-host.js';
import { supervisorSchema } from '../../src/config/host.js';

const actorUrl = (kind: string) => new URL(`../actors/${kind}/index.js`, import.meta.url);
const specs: ActorSpec[] = [
  { name: 'hop-echo', kind: 'hop-echo', instance: 1, role: 'bench', entry: actorUrl('hop-echo'), config: {}, front: false, links: [] },
  { name: 'hop-front', kind: 'hop-front', instance: 1, role: 'bench', entry: actorUrl('hop-front'), config: { host: '127.0.0.1', port: 0 }, front: true, links: ['hop-echo'] },
];
await runSupervisor(specs, supervisorSchema.parse({}), { json: false, quiet: true, colour: false }, ({ urls, startupMs }) => {
  process.stdout.write(`${JSON.stringify({ urls, startupMs })}\n`);
});
