import test from 'ava';
import { batched } from '../../../actors/qpool/site/batch.js';

test('calls made in one turn travel as one batch and get their own answers', async (t) => {
  const batches: number[][] = [];
  const double = batched<number, number>((values) => {
    batches.push(values);
    return Promise.resolve(values.map((value) => value * 2));
  });
  const results = await Promise.all([1, 2, 3].map((value) => double(value)));
  t.deepEqual(results, [2, 4, 6]);
  t.deepEqual(batches, [[1, 2, 3]]);
  t.is(await double(5), 10);
  t.deepEqual(batches.at(-1), [5]);
});

test('a batch is sent early at maxBatch', async (t) => {
  const sizes: number[] = [];
  const echo = batched<number, number>(
    (values) => {
      sizes.push(values.length);
      return Promise.resolve(values);
    },
    { maxBatch: 2 },
  );
  await Promise.all([1, 2, 3, 4, 5].map((value) => echo(value)));
  t.deepEqual(sizes, [2, 2, 1]);
});

test('a failed batch fails each of its calls; a wrong count is an error', async (t) => {
  const failing = batched<number, number>(() => Promise.reject(new Error('peer gone')));
  await t.throwsAsync(Promise.all([failing(1), failing(2)]), { message: 'peer gone' });
  const short = batched<number, number>(() => Promise.resolve([1]));
  await t.throwsAsync(Promise.all([short(1), short(2)]), { message: 'batch answered 1 results for 2 requests' });
});
