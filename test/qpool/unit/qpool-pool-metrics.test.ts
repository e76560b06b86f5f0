import test from 'ava';
import { Registry } from 'prom-client';
import type { PoolService } from '../../../actors/qpool/pool/logic.js';
import { registerPoolMetrics } from '../../../actors/qpool/pool/pool-metrics.js';

test('outpost_pool_served_total never goes down when a front gives held values back', async (t) => {
  let served = 100;
  const service = {
    status: () => ({ available: 0, capacity: 10, served_total: served }),
    diskFailing: false,
    counts: { ingested: 0, duplicates: 0, evicted: 0, diskFailures: 0 },
  } as unknown as PoolService;
  const registry = new Registry();
  registerPoolMetrics(registry, service);
  const read = async () => (await registry.getSingleMetric('outpost_pool_served_total')?.get())?.values[0]?.value;
  t.is(await read(), 100);
  served = 40; // a front gave back 60 values it held
  t.is(await read(), 100);
  served = 130;
  t.is(await read(), 130);
});
