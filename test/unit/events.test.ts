import test from 'ava';
import { EventChannel } from '../../src/actor/event-channel.js';
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
  router.publish([{ topic: 'samples', messages: [1, 2] }]);
  t.deepEqual(delivered, ['a', 'b', 'c', 'd'].map((subscriber) => ({ subscriber, messages: [1, 2] })));
});

test('a late or restarted subscriber receives the latest message of every key at once, removals left out', (t) => {
  const { router, delivered } = recordingRouter();
  router.subscribe('front', 'domains');
  router.publish([keyed('domains', [['app', 'app v1'], ['www', 'www v1'], ['app', 'app v2'], ['old', 'old v1']])]);
  router.publish([keyed('domains', [['old', 'old removed', false]])]);
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
  router.publish([{ topic: 'samples', messages: [1] }]);
  t.deepEqual(delivered, []);
});

test('an actor batches its publishes into one post per turn and subscribes to a topic once', async (t) => {
  const posts: EventBatch[][] = [];
  const subscriptions: string[] = [];
  const channel = new EventChannel({ publish: (events) => posts.push(events), subscribe: (topic) => subscriptions.push(`+${topic}`), unsubscribe: (topic) => subscriptions.push(`-${topic}`) });
  const topic = declareTopic<{ n: number }>('numbers');
  const seen: number[] = [];
  const first = channel.subscribe(topic, (message) => seen.push(message.n));
  const second = channel.subscribe(topic, (message) => seen.push(message.n * 10));
  for (let n = 1; n <= 3; n++) channel.publish(topic, { n }, { key: String(n) });
  await new Promise((resolve) => setImmediate(resolve));
  t.is(posts.length, 1);
  t.deepEqual(posts[0]?.map((batch) => batch.keys), [['1', '2', '3']]);
  channel.deliver(posts[0] ?? []);
  t.deepEqual(seen, [1, 10, 2, 20, 3, 30]);
  first();
  second();
  t.deepEqual(subscriptions, ['+numbers', '-numbers']);
});
