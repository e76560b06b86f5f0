import test from 'ava';
import { EventHistory } from '../../src/http/event-history.js';

test('the history forgets its oldest events past its capacity', (t) => {
  const history = new EventHistory(3);
  t.is(history.after('1'), undefined);
  for (let id = 1; id <= 4; id++) history.add({ id: String(id), data: String(id) });
  t.is(history.after('1'), undefined);
  t.deepEqual(
    history.after('2')?.map((event) => event.id),
    ['3', '4'],
  );
  t.deepEqual(history.after('4'), []);
  t.is(history.lastId, '4');
});

test('a history holds at least one event', (t) => {
  t.throws(() => new EventHistory(0), { instanceOf: RangeError });
});
