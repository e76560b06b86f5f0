// One request to certhub for one domain's material: GET <server>/api/cert/<domain> with the domain's
// token, TLS verified against the system's roots (plus a private CA when given) or against the pin of
// certhub's own certificate, a deadline on the whole exchange, a bounded body, and the answer checked
// (its chain against the trust anchors) before it is returned. Every failure is a CertificateFetchError
// whose kind says what went wrong.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { secureContextTrusting } from '../../../src/net/extra-ca.js';
import { version } from '../../../src/version.js';
import type { TLSSocket } from 'node:tls';
import { BadAnswerError, checkCertificateAnswer, type CertificateMaterial } from './certificate-answer.js';
import { CertificateFetchError, connectionFailure, statusFailure } from './fetch-failure.js';
import { trustAnchors, type MaterialTrust } from './material-trust.js';
import { connectPinned } from './pinned-connection.js';
import { defaultFetchTimeoutMs } from './fetch-defaults.js';
import type { CerthubServers } from './certhub-servers.js';

export interface CertificateRequest {
  /** The certhub servers (`https://certhub.example.net`, a path prefix kept), tried as certhub-servers.ts says. */
  servers: CerthubServers;
  /** The full name (`app.example.com`). */
  domain: string;
  token: string;
  /** PEM of a private CA trusted for the server besides the system's roots (`--ca FILE`). */
  ca?: string;
  /** `sha256:<hex>`: trust exactly the server certificate with this fingerprint, and no CA (`--pin`). */
  pin?: string | undefined;
  /** What the answered material must chain to; default the system's roots. */
  trust?: MaterialTrust;
  /** The whole exchange, connecting included; default 30 s. */
  timeoutMs?: number;
  /** Aborting ends the request at once (with a CertificateFetchError of kind `timeout`). */
  signal?: AbortSignal;
  /** Epoch milliseconds, to judge the certificate's validity; default Date.now. */
  now?: () => number;
  /** The host keeps the key (own-key.ts): the answer must hold none. */
  ownKey?: boolean;
}

/** A certificate, a chain of a few and a key fit in a few kB; 256 KiB bounds a server gone wrong. */
const maxAnswerBytes = 256 * 1024;

/** The URL of the domain's material under `server` (whose path, if any, is a prefix). */
export function certificateUrl(server: URL, domain: string): URL {
  return new URL(`api/cert/${encodeURIComponent(domain)}`, withSlash(server));
}

/** The checked material of `request.domain`, and the server that answered (`server`); throws CertificateFetchError. */
export async function fetchCertificate(request: CertificateRequest): Promise<CertificateMaterial> {
  const { answer, server } = await exchange(request, 'fetched from', (base) => certificateUrl(base, request.domain));
  const { status, body, retryAfter } = answer;
  const shown = server.origin;
  if (status !== 200) throw statusFailure(status, body, retryAfter, request.domain, shown);
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new CertificateFetchError('bad-answer', `${shown} answered HTTP 200 for ${request.domain} with a body that is not JSON (is it a certhub server?)`);
  }
  try {
    const material = checkCertificateAnswer(parsed, request.domain, (request.now ?? Date.now)(), request.trust ?? trustAnchors(), request.ownKey === true);
    return { ...material, server: server.href };
  } catch (error) {
    if (error instanceof BadAnswerError)
      throw new CertificateFetchError('bad-answer', `${shown} answered unusable material for ${request.domain}: ${error.message}`);
    throw error;
  }
}

interface Answer {
  status: number;
  body: string;
  retryAfter: string | undefined;
}

/** A JSON body to POST instead of the GET of a domain's material. */
export interface PostedBody {
  json: string;
}

/** What another endpoint of the domain answered, and which server answered it. */
export interface CerthubAnswer {
  status: number;
  body: string;
  server: URL;
}

/** A GET of another of the domain's endpoints (`path` under the server's URL), with its token, pinned and bounded as a fetch is. */
export async function getFromCerthub(request: CertificateRequest, path: string, action: string): Promise<CerthubAnswer> {
  const { answer, server } = await exchange(request, action, (base) => new URL(path, withSlash(base)));
  return { status: answer.status, body: answer.body, server };
}

/** POSTs `body` to `path` under the server's URL with the request's token, trust and deadline (host-report.ts, own-key.ts). */
export async function postToCerthub(request: CertificateRequest, path: string, action: string, body: PostedBody): Promise<CerthubAnswer> {
  const { answer, server } = await exchange(request, action, (base) => new URL(path, withSlash(base)), body);
  return { status: answer.status, body: answer.body, server };
}

/** `server` with a trailing slash, so a path resolves under it (a path prefix is kept). */
export function withSlash(server: URL): URL {
  const base = new URL(server.href);
  if (!base.pathname.endsWith('/')) base.pathname = `${base.pathname}/`;
  base.search = '';
  base.hash = '';
  return base;
}

/** One exchange through the request's servers: a 5xx moves on to the next, as a failed connection does. */
function exchange(request: CertificateRequest, action: string, urlOf: (server: URL) => URL, posted?: PostedBody): Promise<{ answer: Answer; server: URL }> {
  return request.servers.exchange(
    { domain: request.domain, action },
    (server) => exchangeWith(urlOf(server), request, server.origin, posted),
    ({ status }) => (status >= 500 && status <= 599 ? `HTTP ${status}` : undefined),
    request.signal,
  );
}

/**
 * One request to one server. A name with several addresses is Node's to walk (autoSelectFamily, on
 * by default since Node 20): an address that refuses, or does not connect within 250 ms, gives way to
 * the next, IPv6 and IPv4 in turn (Happy Eyeballs, RFC 8305); TLS checks the URL's name whichever answers.
 */
function exchangeWith(url: URL, request: CertificateRequest, shown: string, posted?: PostedBody): Promise<Answer> {
  const timeoutMs = request.timeoutMs ?? defaultFetchTimeoutMs;
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const pin = request.pin;
  if (pin !== undefined && url.protocol !== 'https:')
    return Promise.reject(new CertificateFetchError('tls', `a pin needs the server's https:// address, not ${shown}`));
  return new Promise<Answer>((resolve, reject) => {
    let connected = false;
    let pinnedSocket: TLSSocket | undefined;
    const fail = (error: Error) => {
      clearTimeout(deadline);
      request.signal?.removeEventListener('abort', onAbort);
      outgoing.destroy();
      pinnedSocket?.destroy();
      reject(connectionFailure(error, shown));
    };
    const deadline = setTimeout(() => {
      const seconds = `${timeoutMs / 1000} s`;
      fail(
        connected
          ? new CertificateFetchError('no-answer', `${shown} accepted the connection but sent no complete answer within ${seconds}`)
          : new CertificateFetchError('unreachable', `cannot reach ${shown}: no connection within ${seconds}`),
      );
    }, timeoutMs);
    const onAbort = () => fail(new CertificateFetchError('no-answer', `the fetch from ${shown} was stopped`));
    const outgoing = send(
      url,
      {
        method: posted === undefined ? 'GET' : 'POST',
        headers: {
          Authorization: `Bearer ${request.token}`,
          Accept: 'application/json',
          'User-Agent': `certhub-agent/${version}`,
          ...(posted === undefined ? {} : { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(posted.json)) }),
        },
        // Node's `ca` replaces the system roots; a private CA is added to them instead.
        ...(request.ca === undefined ? {} : { secureContext: secureContextTrusting(request.ca) }),
        // With a pin, the request gets its socket only once the server showed the pinned certificate
        // (Node uses createConnection only when no agent is given, not even `false`).
        ...(pin === undefined
          ? { agent: false }
          : {
              createConnection: (_options: unknown, done: (error: Error | null, socket: TLSSocket) => void) => {
                pinnedSocket = connectPinned(url, pin, shown, (error, socket) => {
                  if (error === null) connected = true;
                  done(error, socket);
                });
              },
            }),
      },
      (response: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let received = 0;
        response.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (received > maxAnswerBytes) fail(new CertificateFetchError('bad-answer', `${shown} sent an answer larger than ${maxAnswerBytes / 1024} KiB`));
          else chunks.push(chunk);
        });
        response.on('end', () => {
          clearTimeout(deadline);
          request.signal?.removeEventListener('abort', onAbort);
          const retryAfter = response.headers['retry-after'];
          resolve({
            status: response.statusCode ?? 0,
            body: Buffer.concat(chunks).toString('utf8'),
            retryAfter: typeof retryAfter === 'string' ? retryAfter : undefined,
          });
        });
        response.on('error', fail);
        response.on('aborted', () => fail(new CertificateFetchError('no-answer', `${shown} closed the connection mid-answer`)));
      },
    );
    outgoing.on('socket', (socket) => {
      const connectedEvent = url.protocol === 'https:' ? 'secureConnect' : 'connect';
      socket.once(connectedEvent, () => (connected = true));
    });
    outgoing.on('error', fail);
    if (request.signal?.aborted === true) onAbort();
    else request.signal?.addEventListener('abort', onAbort, { once: true });
    outgoing.end(posted?.json);
  });
}
