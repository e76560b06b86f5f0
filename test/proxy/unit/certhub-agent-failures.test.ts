// Every way a fetch fails, in words: the status answers certhub gives and the connection errors Node reports.
import test from 'ava';
import { connectionFailure, statusFailure } from '../../../actors/proxy/client/fetch-failure.js';

const server = 'https://certhub.example.net';

test("409 passes on the server's reason; 401 says what to do; 429 keeps Retry-After; a 5xx is the server's error; anything else is a bad answer", (t) => {
  const notIssued = statusFailure(
    409,
    JSON.stringify({ error: 'the certificate of app.example.net is not issued yet (status: issuing)' }),
    undefined,
    'app',
    server,
  );
  t.is(notIssued.kind, 'not-issued');
  t.is(notIssued.message, 'the certificate of app is not issued yet (HTTP 409: the certificate of app.example.net is not issued yet (status: issuing))');
  const refused = statusFailure(401, '{"error":"credentials are missing or wrong"}', undefined, 'app', server);
  t.is(refused.kind, 'token-refused');
  t.regex(refused.message, /copy the current token from the certhub panel/);
  const limited = statusFailure(429, '{"error":"too many requests"}', '17', 'app', server);
  t.like(limited, { kind: 'rate-limited', retryAfterMs: 17_000 });
  t.is(statusFailure(429, '', 'soon', 'app', server).retryAfterMs, undefined);
  t.like(statusFailure(502, '<html>', undefined, 'app', server), { kind: 'server-error', message: `${server} answered HTTP 502 for app` });
  t.like(statusFailure(418, '', undefined, 'app', server), { kind: 'bad-answer', message: `${server} answered HTTP 418 for app` });
  t.regex(statusFailure(301, '', undefined, 'app', server).message, /follows no redirects/);
  t.is(
    statusFailure(500, JSON.stringify({ error: 'a\u001b[31mred\nline' }), undefined, 'app', server).message,
    `${server} answered HTTP 500 for app: a [31mred line`,
    'no terminal escapes from the server',
  );
});

test('connection errors by their code: refused, no such host, TLS (with the --ca hint for certificate checks)', (t) => {
  const failure = (code: string, message = code) => connectionFailure(Object.assign(new Error(message), { code }), server);
  t.like(failure('ECONNREFUSED'), { kind: 'unreachable', message: `cannot reach ${server}: connection refused (is certhub running there?)` });
  t.like(failure('ENOTFOUND'), { kind: 'unreachable', message: `cannot reach ${server}: no such host` });
  t.like(failure('UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'unable to get local issuer certificate'), {
    kind: 'tls',
    message: `TLS with ${server} failed: unable to get local issuer certificate (a private CA? pass it with --ca FILE)`,
  });
  t.like(failure('ERR_TLS_CERT_ALTNAME_INVALID', "Hostname/IP does not match certificate's altnames"), { kind: 'tls' });
  t.like(failure('EPROTO', 'routines:ssl3_get_record:wrong version number'), {
    kind: 'tls',
    message: `TLS with ${server} failed: the server does not speak TLS (use its http:// address?)`,
  });
  t.like(failure('ECONNRESET'), { kind: 'no-answer' });
});
