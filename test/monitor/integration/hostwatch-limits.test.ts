// A front answers at most so many event streams at once, and at most so many requests at once from one
// client address: one client (or a page in the user's browser) holding hundreds of streams must not
// take every socket and every push from the others. Both refusals are JSON, with Retry-After; the
// client one closes its connection. Clients here speak from several loopback addresses (127.0.0.x),
// each of which the front counts on its own.
import { connect, type Socket } from 'node:net';
import test, { type ExecutionContext } from 'ava';
import { defaultRequestsPerClient } from '../../../src/http/client-slots.js';
import { defaultMaxStreams } from '../../../src/http/server.js';
import { startHostwatch } from '../../helpers/hostwatch.js';

interface Answer {
  status: number;
  headers: Map<string, string>;
  /** The body, when the answer has a Content-Length; what came with the head otherwise (a stream). */
  body: string;
  socket: Socket;
  /** Resolves when the server has closed the connection. */
  closed: Promise<void>;
}

/** Sends one GET from `from` and resolves with the answer (a stream's head), the connection left open. */
function ask(t: ExecutionContext, port: number, path: string, from: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress: from }, () => socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`));
    t.teardown(() => socket.destroy());
    const closed = new Promise<void>((done) => socket.on('close', () => done()));
    let text = '';
    let answered = false;
    socket.setEncoding('latin1').on('data', (chunk: string) => {
      if (answered) return;
      text += chunk;
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return;
      const [statusLine = '', ...lines] = text.slice(0, end).split('\r\n');
      const headers = new Map(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
      const length = headers.get('content-length');
      if (length !== undefined && text.length < end + 4 + Number(length)) return;
      answered = true;
      resolve({
        status: Number(statusLine.split(' ')[1]),
        headers,
        body: text.slice(end + 4, length === undefined ? undefined : end + 4 + Number(length)),
        socket,
        closed,
      });
    });
    socket.on('error', reject);
  });
}

async function openStreams(t: ExecutionContext, port: number, from: string, count: number): Promise<void> {
  for (let index = 0; index < count; index++) {
    const stream = await ask(t, port, '/api/stream', from);
    if (stream.status !== 200) throw new Error(`stream ${index + 1} from ${from} answered ${stream.status}`);
  }
}

test('one client address gets at most its allowance of requests at once: the next is refused 429 with JSON and its connection closed; other addresses are answered', async (t) => {
  const hostwatch = await startHostwatch(t, ['--interval', '60']);
  const port = Number(new URL(hostwatch.url).port);
  await openStreams(t, port, '127.0.0.2', defaultRequestsPerClient);

  const refused = await ask(t, port, '/api/snapshot', '127.0.0.2');
  t.is(refused.status, 429);
  t.is(refused.headers.get('retry-after'), '1');
  t.regex(refused.headers.get('content-type') ?? '', /^application\/json/);
  t.regex(
    (JSON.parse(refused.body) as { error: string }).error,
    new RegExp(`too many requests at once from this address: at most ${defaultRequestsPerClient}`),
  );
  t.is(refused.headers.get('connection'), 'close');
  await refused.closed;

  t.is((await ask(t, port, '/api/snapshot', '127.0.0.3')).status, 200);
});

test('a front keeps at most its maximum of event streams open: one more is refused 503 with Retry-After and JSON, and plain requests are still answered', async (t) => {
  const hostwatch = await startHostwatch(t, ['--interval', '60']);
  const port = Number(new URL(hostwatch.url).port);
  const half = Math.floor(defaultMaxStreams / 2);
  // From two addresses, so that no single one reaches its own allowance first.
  await openStreams(t, port, '127.0.0.2', half);
  await openStreams(t, port, '127.0.0.3', defaultMaxStreams - half);

  const refused = await ask(t, port, '/api/stream', '127.0.0.4');
  t.is(refused.status, 503);
  t.is(refused.headers.get('retry-after'), '5');
  t.regex(refused.headers.get('content-type') ?? '', /^application\/json/);
  t.regex((JSON.parse(refused.body) as { error: string }).error, new RegExp(`maximum of ${defaultMaxStreams} event streams open`));

  t.is((await ask(t, port, '/api/snapshot', '127.0.0.4')).status, 200);
});
