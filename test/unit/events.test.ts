import test from 'ava';
import { EventChannel, messagesPerPost } from '../../src/actor/event-channel.js';
import { EventRouter } from '../../src/actor/event-router.js';
import { declareTopic, type EventBatch } from '../../src/actor/topic.js';

/** One topic's batch of keyed events, as an actor's channel sends it. */
const keyed = (topic: string, events: [key: string, message: unknown, retain?: boolean][]): EventBatch => ({
  topic,
  messages: events.map(([, message]) => message),
  keys: events.map(([key]) => key),
  retain: events.map(([, , retain]) => retain ?? true),
});

function recordingRouter() {
  const delivered: { subscriber: string; messages: unknown[] }[] = [];
  const router = new EventRouter((subscriber, batches) => delivered.push({ subscriber, messages: batches.flatMap((batch) => batch.messages) }));
  return { router, delivered };
}

test('every subscriber of a topic receives a published batch in one delivery; others receive nothing', (t) => {
  const { router, delivered } = recordingRouter();
  for (const subscriber of ['a', 'b', 'c', 'd']) router.subscribe(subscriber, 'samples');
  router.subscribe('e', 'other');
  router.publish('sampler', [{ topic: 'samples', messages: [1, 2] }]);
  t.deepEqual(
    delivered,
    ['a', 'b', 'c', 'd'].map((subscriber) => ({ subscriber, messages: [1, 2] })),
  );
});

test('a late or restarted subscriber receives the latest message of every key at once, removals left out', (t) => {
  const { router, delivered } = recordingRouter();
  router.subscribe('front', 'domains');
  router.publish('owner', [
    keyed('domains', [
      ['app', 'app v1'],
      ['www', 'www v1'],
      ['app', 'app v2'],
      ['old', 'old v1'],
    ]),
  ]);
  router.publish('owner', [keyed('domains', [['old', 'old removed', false]])]);
  router.dropSubscriber('front');
  delivered.length = 0;
  router.subscribe('front', 'domains');
  t.deepEqual(delivered, [{ subscriber: 'front', messages: ['app v2', 'www v1'] }]);
});

test('a thread that unsubscribed or ended receives nothing more', (t) => {
  const { router, delivered } = recordingRouter();
  router.subscribe('a', 'samples');
  router.subscribe('b', 'samples');
  router.unsubscribe('a', 'samples');
  router.dropSubscriber('b');
  router.publish('sampler', [{ topic: 'samples', messages: [1] }]);
  t.deepEqual(delivered, []);
});

test('an actor batches its publishes into one post per turn and subscribes to a topic once', async (t) => {
  const posts: EventBatch[][] = [];
  const subscriptions: string[] = [];
  const channel = new EventChannel({
    publish: (events) => posts.push(events),
    subscribe: (topic) => subscriptions.push(`+${topic}`),
    unsubscribe: (topic) => subscriptions.push(`-${topic}`),
  });
  const topic = declareTopic<{ n: number }>('numbers');
  const seen: number[] = [];
  const first = channel.subscribe(topic, (message) => seen.push(message.n));
  const second = channel.subscribe(topic, (message) => seen.push(message.n * 10));
  for (let n = 1; n <= 3; n++) channel.publish(topic, { n }, { key: String(n) });
  await new Promise((resolve) => setImmediate(resolve));
  t.is(posts.length, 1);
  t.deepEqual(
    posts[0]?.map((batch) => batch.keys),
    [['1', '2', '3']],
  );
  channel.deliver(posts[0] ?? []);
  t.deepEqual(seen, [1, 10, 2, 20, 3, 30]);
  first();
  second();
  t.deepEqual(subscriptions, ['+numbers', '-numbers']);
});

/** A publisher's channel and the supervisor's router joined as the supervisor joins them, with the posts counted. */
function joinedThreads() {
  const delivered: { subscriber: string; messages: unknown[] }[] = [];
  const snapshotRequests: string[] = [];
  const router = new EventRouter(
    (subscriber, batches) => delivered.push({ subscriber, messages: batches.flatMap((batch) => batch.messages) }),
    (publisher, topic, subscriber) => {
      snapshotRequests.push(`${publisher} ${topic} ${subscriber}`);
      owner.snapshot(topic, subscriber);
    },
  );
  const owner = new EventChannel({ publish: (batches) => router.publish('owner', batches), subscribe: () => {}, unsubscribe: () => {} });
  return { router, owner, delivered, snapshotRequests };
}

const replica = declareTopic<string>('replica', { keptBy: 'publisher' });

test('a topic kept by its publisher: the supervisor keeps nothing, a late subscriber gets the state from the publisher', (t) => {
  const { router, owner, delivered, snapshotRequests } = joinedThreads();
  router.subscribe('front-1', 'replica');
  owner.publish(replica, 'app v1', { key: 'app' });
  owner.publish(replica, 'old v1', { key: 'old' });
  owner.flush();
  owner.publish(replica, 'app v2', { key: 'app' });
  owner.publish(replica, 'old removed', { key: 'old', retain: false });
  owner.flush();
  t.deepEqual(delivered, [
    { subscriber: 'front-1', messages: ['app v1', 'old v1'] },
    { subscriber: 'front-1', messages: ['app v2', 'old removed'] },
  ]);
  t.deepEqual(snapshotRequests, [], 'no publisher was known when front-1 subscribed: it gets the publishes');

  delivered.length = 0;
  router.subscribe('front-2', 'replica');
  t.deepEqual(snapshotRequests, ['owner replica front-2']);
  t.deepEqual(delivered, [{ subscriber: 'front-2', messages: ['app v2'] }], 'the latest of each key, removals left out, for front-2 alone');

  delivered.length = 0;
  router.dropSubscriber('front-1');
  router.subscribe('front-1', 'replica');
  t.deepEqual(delivered, [{ subscriber: 'front-1', messages: ['app v2'] }], 'a restarted subscriber gets the state again');
});

test('a snapshot follows what the publisher had batched, and goes nowhere once its subscriber left', (t) => {
  const { router, owner, delivered } = joinedThreads();
  owner.publish(replica, 'app v1', { key: 'app' });
  owner.flush();
  owner.publish(replica, 'app v2', { key: 'app' });
  router.subscribe('front', 'replica');
  t.deepEqual(
    delivered,
    [
      { subscriber: 'front', messages: ['app v2'] },
      { subscriber: 'front', messages: ['app v2'] },
    ],
    'the batched change is sent first, then the state that includes it',
  );

  delivered.length = 0;
  router.unsubscribe('front', 'replica');
  owner.snapshot('replica', 'front');
  t.deepEqual(delivered, []);
});

test('a publisher that ended is forgotten as the keeper until it publishes again', (t) => {
  const { router, owner, delivered, snapshotRequests } = joinedThreads();
  owner.publish(replica, 'app v1', { key: 'app' });
  owner.flush();
  router.dropSubscriber('owner');
  router.subscribe('front', 'replica');
  t.deepEqual(snapshotRequests, []);
  t.deepEqual(delivered, []);
  owner.publish(replica, 'app v1', { key: 'app' });
  owner.flush();
  t.deepEqual(delivered, [{ subscriber: 'front', messages: ['app v1'] }], 'the restarted publisher sends its state to the subscribers it has');
});

test('a turn of many events goes in posts of at most messagesPerPost, in order, keys with their messages', async (t) => {
  const posts: EventBatch[][] = [];
  const channel = new EventChannel({ publish: (batches) => posts.push(batches), subscribe: () => {}, unsubscribe: () => {} });
  const topic = declareTopic<number>('numbers');
  const count = messagesPerPost * 2 + 1;
  for (let n = 0; n < count; n++) channel.publish(topic, n, { key: `k${n}`, retain: n % 2 === 0 });
  await new Promise((resolve) => setImmediate(resolve));
  t.deepEqual(
    posts.map((post) => post.map((batch) => batch.messages.length)),
    [[messagesPerPost], [messagesPerPost], [1]],
  );
  const batches = posts.flat();
  t.deepEqual(
    batches.flatMap((batch) => batch.messages),
    Array.from({ length: count }, (_, n) => n),
  );
  t.deepEqual(
    batches.flatMap((batch) => batch.keys),
    Array.from({ length: count }, (_, n) => `k${n}`),
  );
  t.deepEqual(
    batches.flatMap((batch) => batch.retain),
    Array.from({ length: count }, (_, n) => n % 2 === 0),
  );
});
