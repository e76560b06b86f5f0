// What a thread pushes each interval and what a scrape renders of it (a scrape every second
// must cost a hot path under 2%): a family whose samples did not change is not pushed again, one that
// goes away comes back empty, and the scraped text is the same as prom-client merging every thread's
// families at once.
import test from 'ava';
import { AggregatorRegistry } from 'prom-client';
import type { Topic } from '../../src/actor/topic.js';
import { family, withLabels, type MetricFamily } from '../../src/metrics/family.js';
import { RoleMetrics } from '../../src/metrics/role-metrics.js';
import { ThreadMetricsPusher, untilNextPush } from '../../src/metrics/thread-metrics.js';
import type { ThreadFigures } from '../../src/metrics/topic.js';

const expiry = family(
  'outpost_certificate_expiry_timestamp_seconds',
  'When a domain certificate expires.',
  'gauge',
  Array.from({ length: 1000 }, (_, index) => ({ value: 1_800_000_000 + index, labels: { domain: `d${index}.example.com` } })),
);

function pushes(): { pusher: ThreadMetricsPusher; names: () => string[] } {
  let pushed: MetricFamily[] = [];
  const pusher = new ThreadMetricsPusher({ thread: 'cert/front-1', role: 'cert' }, 1000, (families) => (pushed = families));
  return { pusher, names: () => pushed.map((entry) => entry.name) };
}

test('a family whose samples did not change is not pushed again; one that changes is', async (t) => {
  const { pusher, names } = pushes();
  let fetches = 1;
  // A source making new objects with the same samples, as cert-metrics does for the fetch counts.
  pusher.addSource(() => [
    expiry,
    family('outpost_cert_fetches_total', 'Fetches.', 'counter', [{ value: fetches, labels: { domain: 'd1.example.com', outcome: 'served' } }]),
  ]);
  await pusher.pushNow();
  t.true(names().includes(expiry.name));
  t.true(names().includes('outpost_cert_fetches_total'));
  fetches++;
  await pusher.pushNow();
  t.false(names().includes(expiry.name), 'the 1,000 unchanged expiries stay where they were pushed');
  t.true(names().includes('outpost_cert_fetches_total'));
});

test('a family that is no longer made is pushed once with no samples, so its series end', async (t) => {
  let pushed: MetricFamily[] = [];
  const pusher = new ThreadMetricsPusher({ thread: 'proxy/front-1', role: 'proxy' }, 1000, (families) => (pushed = families));
  let made = true;
  pusher.addSource(() => (made ? [expiry] : []));
  await pusher.pushNow();
  made = false;
  await pusher.pushNow();
  t.deepEqual(
    pushed.find((entry) => entry.name === expiry.name),
    { ...expiry, values: [] },
  );
  await pusher.pushNow();
  t.is(
    pushed.find((entry) => entry.name === expiry.name),
    undefined,
  );
});

test('the scraped text is what prom-client merges of every thread at once, after families changed one at a time', async (t) => {
  let deliver: (figures: ThreadFigures) => void = () => t.fail('not subscribed');
  const context = {
    role: 'cert',
    subscribe: <Message>(_topic: Topic<Message>, listener: (message: Message) => void) => {
      deliver = listener as unknown as (figures: ThreadFigures) => void;
      return () => {};
    },
  };
  const metrics = new RoleMetrics(context);
  const requests = (value: number) =>
    family('outpost_http_requests_total', 'Requests.', 'counter', [{ value, labels: { route: '/api/cert/:domain', status: 200 } }]);
  const threads: Record<string, MetricFamily[]> = {
    'cert/front-1': withLabels([expiry, requests(5)], { thread: 'cert/front-1', role: 'cert' }),
    'cert/front-2': withLabels([requests(7)], { thread: 'cert/front-2', role: 'cert' }),
  };
  for (const [thread, families] of Object.entries(threads)) for (const entry of families) deliver({ thread, family: entry });
  const merged = async () => AggregatorRegistry.aggregate(Object.values(threads)).metrics();
  t.is((await metrics.render()).text, await merged());
  // One thread pushes one family again: the text follows, the other families as they were.
  threads['cert/front-2'] = withLabels([requests(9)], { thread: 'cert/front-2', role: 'cert' });
  deliver({ thread: 'cert/front-2', family: threads['cert/front-2'][0]! });
  const text = (await metrics.render()).text;
  t.is(text, await merged());
  t.regex(text, /outpost_http_requests_total\{route="\/api\/cert\/:domain",status="200",thread="cert\/front-2",role="cert"\} 9/);
  // No push since: the next scrape sends the same text, merged and joined once.
  t.is((await metrics.render()).text, text);
  // A push that arrives while a scrape renders is in the next scrape.
  const rendering = metrics.render();
  threads['cert/front-2'] = withLabels([requests(11)], { thread: 'cert/front-2', role: 'cert' });
  deliver({ thread: 'cert/front-2', family: threads['cert/front-2'][0]! });
  await rendering;
  t.is((await metrics.render()).text, await merged());
});

test('every thread pushes at the same wall-clock instants: the next push is due at the next multiple of the interval', (t) => {
  for (const intervalMs of [1000, 5000, 7000]) {
    const before = Date.now();
    const delay = untilNextPush(intervalMs);
    const after = Date.now();
    t.true(delay > 0 && delay <= intervalMs, `${delay} ms for ${intervalMs}`);
    // untilNextPush read the clock between `before` and `after`: the instant it named is a multiple.
    const early = (before + delay) % intervalMs;
    t.true(early === 0 || intervalMs - early <= after - before, `due at ${before + delay}`);
  }
});
