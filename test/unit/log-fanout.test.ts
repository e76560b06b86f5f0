import test from 'ava';
import { LogFanout } from '../../src/log/log-fanout.js';
import { LogViewers } from '../../src/log/log-viewers.js';
import type { LogRecord } from '../../src/log/record.js';
import { LogRing } from '../../src/log/ring.js';

const record = (message: string): LogRecord => ({ time: 0, level: 'info', source: 'test', message });
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

/** A ring, the supervisor's fan-out and one thread's viewers, wired as the supervisor wires them. */
function wired() {
  const ring = new LogRing(100);
  const liveBatches: string[][] = [];
  const thread: { viewers?: LogViewers } = {};
  const fanout = new LogFanout(ring, {
    backlog: (_thread, id, records) => thread.viewers?.onBacklog(id, records),
    live: (_thread, records) => {
      liveBatches.push(records.map((entry) => entry.message));
      thread.viewers?.onLive(records);
    },
  });
  const viewers = new LogViewers({ subscribe: (id, backlog) => fanout.subscribe('front', id, backlog), unsubscribe: (id) => fanout.unsubscribe('front', id) });
  thread.viewers = viewers;
  return { ring, fanout, viewers, liveBatches };
}

test('a viewer receives the backlog it asked for, then every new record', async (t) => {
  const { ring, viewers } = wired();
  for (const message of ['a', 'b', 'c', 'd']) ring.push(record(message));
  const seen: string[] = [];
  viewers.subscribe((entry) => seen.push(entry.message), 2);
  t.deepEqual(seen, ['c', 'd']);
  ring.push(record('e'));
  await nextTurn();
  t.deepEqual(seen, ['c', 'd', 'e']);
});

test('two viewers of one thread each get their own backlog and each new record once', async (t) => {
  const { ring, viewers } = wired();
  for (const message of ['a', 'b', 'c']) ring.push(record(message));
  const first: string[] = [];
  const second: string[] = [];
  viewers.subscribe((entry) => first.push(entry.message), 0);
  viewers.subscribe((entry) => second.push(entry.message), 3);
  ring.push(record('d'));
  await nextTurn();
  t.deepEqual(first, ['d']);
  t.deepEqual(second, ['a', 'b', 'c', 'd']);
});

test('forwarding stops when the last viewer of a thread leaves, not before', async (t) => {
  const { ring, fanout, viewers, liveBatches } = wired();
  const leaveFirst = viewers.subscribe(() => {}, 0);
  const leaveSecond = viewers.subscribe(() => {}, 0);
  leaveFirst();
  ring.push(record('one viewer left'));
  await nextTurn();
  t.deepEqual(liveBatches, [['one viewer left']]);
  leaveSecond();
  t.deepEqual(fanout.streamingThreads, []);
  ring.push(record('nobody watches'));
  await nextTurn();
  t.deepEqual(liveBatches, [['one viewer left']]);
});
