// The agent's choice among several certhub servers (client/certhub-servers.ts), with the transport
// injected: which server each exchange tries, in which order, what moves it on and what does not,
// the stickiness after a move, the line a move logs, and a single server left as it is.
import test from 'ava';
import { CerthubServers, serverMoveLine, type ServerMove } from '../../../actors/proxy/client/certhub-servers.js';
import { CertificateFetchError, connectionFailure, statusFailure } from '../../../actors/proxy/client/fetch-failure.js';

const a = new URL('https://a.example.test:8443/');
const b = new URL('https://b.example.test:8443/');
const c = new URL('https://c.example.test:8443/');
const label = { domain: 'app.example.test', action: 'fetched from' };

type Behaviour = { status: number } | Error;

/** A transport whose servers behave as `behaviours` says (by origin); it records each server asked. */
function transport(behaviours: Record<string, Behaviour>) {
  const asked: string[] = [];
  const attempt = (server: URL): Promise<{ status: number }> => {
    asked.push(server.host);
    const behaviour = behaviours[server.origin] ?? { status: 200 };
    return behaviour instanceof Error ? Promise.reject(behaviour) : Promise.resolve(behaviour);
  };
  return { asked, attempt };
}

const judge = ({ status }: { status: number }) => (status >= 500 ? `HTTP ${status}` : undefined);
const refused = (server: URL) => connectionFailure(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }), server.origin);

function servers(urls: URL[]): { choice: CerthubServers; moves: ServerMove[] } {
  const moves: ServerMove[] = [];
  return { choice: new CerthubServers(urls, (move) => moves.push(move)), moves };
}

test('the first server answers: the others are never asked, and nothing is said', async (t) => {
  const { choice, moves } = servers([a, b, c]);
  const { asked, attempt } = transport({});
  const { server } = await choice.exchange(label, attempt, judge);
  t.is(server, a);
  t.deepEqual(asked, ['a.example.test:8443']);
  t.deepEqual(moves, []);
});

test('a refused connection moves on to the next, which the exchanges after it keep (no ping-pong)', async (t) => {
  const { choice, moves } = servers([a, b, c]);
  const down = transport({ [a.origin]: refused(a) });
  t.is((await choice.exchange(label, down.attempt, judge)).server, b);
  t.deepEqual(down.asked, ['a.example.test:8443', 'b.example.test:8443']);
  t.is(moves.length, 1);
  t.is(
    serverMoveLine(moves[0] as ServerMove),
    'app.example.test: fetched from https://b.example.test:8443 after https://a.example.test:8443 failed: connection refused',
  );

  // a is back: the agent stays on b, which answers, and says nothing more.
  const back = transport({});
  t.is((await choice.exchange(label, back.attempt, judge)).server, b);
  t.is((await choice.exchange(label, back.attempt, judge)).server, b);
  t.deepEqual(back.asked, ['b.example.test:8443', 'b.example.test:8443']);
  t.is(moves.length, 1);
});

test('a 5xx, a timeout and a failed handshake move on, in the order of the list from the server used, wrapping to its top', async (t) => {
  const { choice, moves } = servers([a, b, c]);
  await choice.exchange(label, transport({ [a.origin]: refused(a) }).attempt, judge);
  const later = transport({
    [b.origin]: { status: 503 },
    [c.origin]: new CertificateFetchError('no-answer', `${c.origin} accepted the connection but sent no complete answer within 30 s`),
  });
  t.is((await choice.exchange(label, later.attempt, judge)).server, a);
  t.deepEqual(later.asked, ['b.example.test:8443', 'c.example.test:8443', 'a.example.test:8443']);
  t.is(
    serverMoveLine(moves[1] as ServerMove),
    'app.example.test: fetched from https://a.example.test:8443 after https://b.example.test:8443 failed: HTTP 503, https://c.example.test:8443 failed: accepted the connection but sent no complete answer within 30 s',
  );
  const tls = transport({ [a.origin]: new CertificateFetchError('tls', `TLS with ${a.origin} failed: certificate has expired`) });
  t.is((await choice.exchange(label, tls.attempt, judge)).server, b);
  t.deepEqual(moves[2]?.failed, [{ server: a, reason: 'TLS: certificate has expired' }]);
});

test('a 4xx is an answer: a 401 is returned from the server that gave it and no other is asked', async (t) => {
  const { choice, moves } = servers([a, b]);
  const { asked, attempt } = transport({ [a.origin]: { status: 401 } });
  const { answer, server } = await choice.exchange(label, attempt, judge);
  t.deepEqual(answer, { status: 401 });
  t.is(server, a);
  t.deepEqual(asked, ['a.example.test:8443']);
  t.deepEqual(moves, []);
});

test('a failure that is no outage (a refused token, unusable material) is thrown as it is, without asking the next', async (t) => {
  const { choice } = servers([a, b]);
  for (const failure of [statusFailure(401, '{}', undefined, 'app.example.test', a.origin), new CertificateFetchError('bad-answer', 'not a certificate')]) {
    const { asked, attempt } = transport({ [a.origin]: failure });
    t.is(await t.throwsAsync(choice.exchange(label, attempt, judge)), failure);
    t.deepEqual(asked, ['a.example.test:8443']);
  }
});

test('every server failing fails the exchange with each reason, and the next exchange starts again at the top of the list', async (t) => {
  const { choice, moves } = servers([a, b, c]);
  await choice.exchange(label, transport({ [a.origin]: refused(a) }).attempt, judge);
  const down = transport({ [a.origin]: refused(a), [b.origin]: { status: 502 }, [c.origin]: refused(c) });
  const error = await t.throwsAsync(choice.exchange(label, down.attempt, judge), { instanceOf: CertificateFetchError });
  t.deepEqual(down.asked, ['b.example.test:8443', 'c.example.test:8443', 'a.example.test:8443']);
  t.is(error?.kind, 'unreachable');
  t.is(
    error?.message,
    'no certhub server answered for app.example.test: https://b.example.test:8443: HTTP 502; https://c.example.test:8443: connection refused; https://a.example.test:8443: connection refused',
  );
  t.is(moves.length, 1);

  const again = transport({});
  t.is((await choice.exchange(label, again.attempt, judge)).server, a);
  t.deepEqual(again.asked, ['a.example.test:8443']);
  t.is(moves.length, 2, 'a answering after b was used is a move too');
});

test('one server is used as a single URL is: its 5xx is the answer, its failure thrown unchanged', async (t) => {
  const { choice, moves } = servers([a]);
  t.deepEqual((await choice.exchange(label, transport({ [a.origin]: { status: 503 } }).attempt, judge)).answer, { status: 503 });
  const failure = refused(a);
  t.is(await t.throwsAsync(choice.exchange(label, transport({ [a.origin]: failure }).attempt, judge)), failure);
  t.is(failure.message, 'cannot reach https://a.example.test:8443: connection refused (is certhub running there?)');
  t.deepEqual(moves, []);
});

test('a stopped exchange moves nowhere: the failure is the caller’s', async (t) => {
  const { choice } = servers([a, b]);
  const stop = new AbortController();
  stop.abort();
  const { asked, attempt } = transport({ [a.origin]: new CertificateFetchError('no-answer', `the fetch from ${a.origin} was stopped`) });
  await t.throwsAsync(choice.exchange(label, attempt, judge, stop.signal), { message: /was stopped/ });
  t.deepEqual(asked, ['a.example.test:8443']);
});

test('domains fetched together through one list move once, and all land on the server that answers', async (t) => {
  const { choice, moves } = servers([a, b]);
  const { attempt } = transport({ [a.origin]: refused(a) });
  const answered = await Promise.all(['app', 'web', 'api'].map((name) => choice.exchange({ ...label, domain: `${name}.example.test` }, attempt, judge)));
  t.deepEqual(
    answered.map(({ server }) => server.host),
    ['b.example.test:8443', 'b.example.test:8443', 'b.example.test:8443'],
  );
  t.is(moves.length, 1);
  t.is(choice.preferred, b);
});
