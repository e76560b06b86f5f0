import test from 'ava';
import { FatalActorError } from '../../src/actor/actor.js';
import { EventChannel } from '../../src/actor/event-channel.js';
import { declareActor, actorSpec } from '../../src/actor/kind.js';
import { TopicPolicy } from '../../src/actor/topic-policy.js';
import { declareTopic } from '../../src/actor/topic.js';

const publisherKind = declareActor('publisher', new URL('file:///publisher.js'));
const readerKind = declareActor('reader', new URL('file:///reader.js'));
const replica = declareTopic<string>('cert/domains', { keptBy: 'publisher' });
const shared = declareTopic<string>('monitor/snapshots', { readers: ['speedtest', 'auditor'] });

const specs = [
  actorSpec(publisherKind, { ref: 'cert/domains', role: 'cert', config: {}, topics: [replica] }),
  actorSpec(publisherKind, { ref: 'monitor/sampler', role: 'monitor', config: {}, topics: [shared] }),
  actorSpec(readerKind, { ref: 'cert/http-front', role: 'cert', config: {} }),
];

test("a topic is readable by its role's own actors and by the roles and kinds it names, by no one else", (t) => {
  const policy = new TopicPolicy(specs);
  t.is(policy.refuseSubscribe({ role: 'cert', kind: 'http-front' }, 'cert/domains'), undefined);
  t.is(policy.refuseSubscribe({ role: 'proxy', kind: 'http-front' }, 'cert/domains'), 'topic cert/domains is readable by role cert only');
  t.is(policy.refuseSubscribe({ role: 'speedtest', kind: 'http-front' }, 'monitor/snapshots'), undefined);
  t.is(policy.refuseSubscribe({ role: 'qpool', kind: 'auditor' }, 'monitor/snapshots'), undefined);
  t.is(
    policy.refuseSubscribe({ role: 'qpool', kind: 'http-front' }, 'monitor/snapshots'),
    'topic monitor/snapshots is readable by role monitor and speedtest, auditor only',
  );
  t.is(policy.refuseSubscribe({ role: 'cert', kind: 'http-front' }, 'fixture/anything'), 'no role declares topic fixture/anything');
});

test('only the declaring role publishes on a topic, even one other roles may read', (t) => {
  const policy = new TopicPolicy(specs);
  t.is(policy.refusePublish({ role: 'cert', kind: 'publisher' }, 'cert/domains'), undefined);
  t.is(policy.refusePublish({ role: 'greeter', kind: 'http-front' }, 'cert/domains'), 'topic cert/domains is published by role cert only');
  t.is(policy.refusePublish({ role: 'speedtest', kind: 'http-front' }, 'monitor/snapshots'), 'topic monitor/snapshots is published by role monitor only');
  t.is(policy.refusePublish({ role: 'cert', kind: 'publisher' }, 'undeclared'), 'no role declares topic undeclared');
});

test("every role's metrics and readiness topics are its own, declared by the supervisor", (t) => {
  const policy = new TopicPolicy(specs);
  t.is(policy.refuseSubscribe({ role: 'cert', kind: 'http-front' }, 'metrics/cert'), undefined);
  t.is(policy.refuseSubscribe({ role: 'cert', kind: 'http-front' }, 'readiness/cert'), undefined);
  t.is(policy.refuseSubscribe({ role: 'monitor', kind: 'http-front' }, 'metrics/cert'), 'topic metrics/cert is readable by role cert only');
  t.is(policy.refusePublish({ role: 'monitor', kind: 'sampler' }, 'metrics/cert'), 'topic metrics/cert is published by role cert only');
});

test('two roles declaring one topic is refused before anything runs', (t) => {
  const squatter = actorSpec(publisherKind, { ref: 'greeter/counter', role: 'greeter', config: {}, topics: [replica] });
  t.throws(() => new TopicPolicy([...specs, squatter]), { message: 'roles cert and greeter both declare topic cert/domains' });
});

test('a refused subscription drops its listener and tells it; a listener that did not ask to be told fails the actor', (t) => {
  const channel = new EventChannel({ publish: () => {}, subscribe: () => {}, unsubscribe: () => {} });
  const received: string[] = [];
  const refusals: string[] = [];
  channel.subscribe(replica, (message) => received.push(message), { onRefused: (reason) => refusals.push(reason) });
  channel.refused('cert/domains', 'topic cert/domains is readable by role cert only');
  channel.deliver([{ topic: 'cert/domains', messages: ['token'] }]);
  t.deepEqual(refusals, ['topic cert/domains is readable by role cert only']);
  t.deepEqual(received, []);

  channel.subscribe(shared, (message) => received.push(message));
  const error = t.throws(() => channel.refused('monitor/snapshots', 'topic monitor/snapshots is readable by role monitor only'), {
    instanceOf: FatalActorError,
  });
  t.is(error?.message, 'the supervisor refused the subscription to topic monitor/snapshots: topic monitor/snapshots is readable by role monitor only');
});
