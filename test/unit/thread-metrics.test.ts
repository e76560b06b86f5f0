// Each thread's own figures, as a soak reads them per thread: the heap and the resources that keep
// its event loop alive, pushed by every actor thread and by the supervisor.
import { createServer } from 'node:net';
import test from 'ava';
import type { MetricFamily } from '../../src/metrics/family.js';
import { supervisorFamilies } from '../../src/metrics/supervisor-figures.js';
import { ThreadMetricsPusher } from '../../src/metrics/thread-metrics.js';

function value(families: readonly MetricFamily[], name: string): number | undefined {
  return families.find((entry) => entry.name === name)?.values[0]?.value;
}

async function pushed(): Promise<MetricFamily[]> {
  let families: MetricFamily[] = [];
  await new ThreadMetricsPusher({ thread: 'test/thread', role: 'test' }, 1000, (pushedFamilies) => (families = pushedFamilies)).pushNow();
  return families;
}

test('a thread pushes its active resources, which count a listening socket and a timer more while they are open', async (t) => {
  const before = value(await pushed(), 'outpost_thread_active_resources');
  t.is(typeof before, 'number');
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const timer = setInterval(() => {}, 60_000);
  try {
    const families = await pushed();
    // At least the server's handle and the timer (a listen may hold a request of its own for a while).
    t.true(value(families, 'outpost_thread_active_resources')! >= before! + 2);
    t.deepEqual(families.find((entry) => entry.name === 'outpost_thread_active_resources')?.values[0]?.labels, { thread: 'test/thread', role: 'test' });
  } finally {
    clearInterval(timer);
    await new Promise((resolve) => server.close(resolve));
  }
  await new Promise((resolve) => setImmediate(resolve));
  t.is(value(await pushed(), 'outpost_thread_active_resources'), before);
});

test('the supervisor pushes its own heap and active resources beside the process figures', (t) => {
  const families = supervisorFamilies([]);
  t.true((value(families, 'outpost_thread_heap_used_bytes') ?? 0) > 0);
  t.true((value(families, 'outpost_thread_active_resources') ?? -1) >= 0);
});
