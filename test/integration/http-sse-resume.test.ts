import test from 'ava';
import { EventHistory } from '../../src/http/event-history.js';
import { EventStream } from '../../src/http/sse.js';
import { withServer } from '../helpers/with-server.js';

/** Reads an event stream until `until` appears in it, then stops reading. */
async function readUntil(url: string, until: string, headers: Record<string, string> = {}): Promise<string> {
  const controller = new AbortController();
  const response = await fetch(url, { headers, signal: controller.signal });
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  while (!text.includes(until)) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
  }
  controller.abort();
  return text;
}

/** The `id:` lines of a stream's text, in order. */
const ids = (text: string) => [...text.matchAll(/^id: (.*)$/gm)].map((match) => match[1]);

// A stream of numbered changes: a reconnecting client gets what came after its Last-Event-ID, or
// the whole state (an `event: state` frame) when it is new or its id is older than the history.
test(
  'an event stream resumes after Last-Event-ID, and falls back to the full state when the id is unknown or too old',
  withServer,
  ({ router, server }) => {
    const history = new EventHistory(5);
    for (let id = 1; id <= 8; id++) history.add({ id: String(id), event: 'change', data: `change ${id}` });
    router.get('/changes', (request, reply) => {
      const stream = new EventStream(request, reply, server);
      if (!stream.resume(history)) stream.send('all 8 changes', 'state', history.lastId);
      stream.send('end of replay', 'marker');
    });
  },
  async (t, { url }) => {
    const fresh = await readUntil(`${url}/changes`, 'end of replay');
    t.true(fresh.includes('event: state\nid: 8\ndata: all 8 changes\n\n'), fresh);
    t.deepEqual(ids(fresh), ['8']);

    const resumed = await readUntil(`${url}/changes`, 'end of replay', { 'Last-Event-ID': '5' });
    t.deepEqual(ids(resumed), ['6', '7', '8']);
    t.true(resumed.includes('event: change\nid: 6\ndata: change 6\n\n'));
    t.false(resumed.includes('event: state'));

    const upToDate = await readUntil(`${url}/changes`, 'end of replay', { 'Last-Event-ID': '8' });
    t.deepEqual(ids(upToDate), [], 'nothing missed, nothing sent');

    // The history holds 4 to 8: id 3 was forgotten, id 42 never existed.
    for (const lastId of ['3', '42']) {
      const stale = await readUntil(`${url}/changes`, 'end of replay', { 'Last-Event-ID': lastId });
      t.deepEqual(ids(stale), ['8'], lastId);
      t.true(stale.includes('event: state'), lastId);
    }
  },
);
