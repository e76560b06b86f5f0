// What a full pool keeps on the JavaScript heap: its values lie in one ring and its keys in typed
// arrays (key-index.ts), so 100,000 values and a served history of 10,000 leave the collector almost
// nothing to walk. A Set of the keys kept a heap number and a table entry per key: about 5 MB here.
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { ValuePool } from '../../../actors/qpool/pool/memory.js';
import { ValueBatchBuilder } from '../../../actors/qpool/values/batch.js';

setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

function heapUsed(): number {
  collect();
  collect();
  return process.memoryUsage().heapUsed;
}

test('a full pool of 100,000 values with 10,000 served keeps under 1 MB on the heap', (t) => {
  const capacity = 100_000;
  const builder = new ValueBatchBuilder(capacity + 10_000);
  const bytes = randomBytes(128 * (capacity + 10_000));
  for (let index = 0; index < capacity + 10_000; index++) builder.push(bytes.subarray(index * 128), 1, 'keyed');
  const batch = builder.finish();
  const before = heapUsed();
  const pool = new ValuePool(capacity, 10_000);
  pool.addAll(batch);
  const out = Buffer.alloc(137);
  for (let index = 0; index < 10_000; index++) {
    pool.takeNewest(out, 0);
    pool.markServed(out.readUIntBE(0, 6));
  }
  pool.addAll(batch);
  const grown = heapUsed() - before;
  t.is(pool.size, capacity);
  t.true(grown < 1024 * 1024, `the pool grew the heap by ${(grown / 1024 / 1024).toFixed(2)} MB`);
});
