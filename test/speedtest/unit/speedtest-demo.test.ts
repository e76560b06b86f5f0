// `outpost demo` starts one speed test front, for a short cold start: every thread costs its own Node
// start-up and module graph, and a demo's speed test is served well by one.
import { availableParallelism } from 'node:os';
import test from 'ava';
import { speedtestRole } from '../../../actors/speedtest/index.js';

test('the demo runs the speed test on one front thread; a configured server keeps its default', async (t) => {
  const demo = await speedtestRole.actors(speedtestRole.schema.parse(speedtestRole.demoConfig));
  t.deepEqual(
    demo.map((spec) => spec.name),
    ['speedtest/http-front'],
  );
  const configured = await speedtestRole.actors(speedtestRole.schema.parse({ host: '127.0.0.1', port: 0 }));
  t.is(configured.length, Math.min(2, availableParallelism()));
});
