// How the certhub CLI reaches a running certhub's admin API on the same machine: the address, port
// and admin key come from the data directory's config.json (--url names another address), and over
// HTTPS exactly the certificate certhub serves from that data directory is trusted, by its SHA-256, as
// certhub-agent trusts a pin: the self-signed one, tls.cert_file's, or tls.domain's issued one. No CA
// check is made, and the admin key is sent only once the certificate presented is that one.
import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { ConfigError } from '../../../src/errors.js';
import { formatHostPort } from '../../../src/net/address.js';
import { certificatePin, connectPinned } from '../../../src/net/pinned-tls.js';
import { loadCertConfig } from '../config-load.js';
import type { CertConfig } from '../config.js';
import { selfSignedCertFile } from '../self-signed.js';
import { servingKind } from '../tls.js';

/** The most one admin request may take. */
const adminRequestTimeoutMs = 30_000;
/** An admin answer is a domain's view; anything past this is not one. */
const maxAnswerBytes = 1024 * 1024;

export interface AdminTarget {
  url: URL;
  adminKey: string;
  /** `sha256:<hex>` of the certificate certhub serves over HTTPS; undefined over HTTP. */
  pin: string | undefined;
}

export interface AdminAnswer {
  status: number;
  body: string;
}

/** The running certhub of `dataDir`: its URL (`urlOverride` when given), admin key and certificate pin. */
export async function adminTarget(dataDir: string, urlOverride: string | undefined): Promise<AdminTarget> {
  // The DNS sections are not needed to reach the API: a --demo data directory has none.
  const { config } = await loadCertConfig(dataDir, { demo: true });
  const url = urlOverride === undefined ? configuredUrl(config) : parsedUrl(urlOverride);
  const pin = url.protocol === 'https:' ? await servedPin(dataDir, config) : undefined;
  return { url, adminKey: config.admin_key, pin };
}

function parsedUrl(text: string): URL {
  const url = URL.canParse(text) ? new URL(text) : undefined;
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:'))
    throw new ConfigError([`--url must be an http:// or https:// URL, not ${text}`]);
  return url;
}

/** Where `certhub run -d DIR` listens without -H and -p: config.json's bind and port, a wildcard bind reached on loopback. */
function configuredUrl(config: Readonly<CertConfig>): URL {
  const host = config.bind === '0.0.0.0' ? '127.0.0.1' : config.bind === '::' ? '::1' : config.bind;
  const kind = servingKind(config, config.bind);
  const scheme = kind === 'tls' || kind === 'self-signed' ? 'https' : 'http';
  return new URL(`${scheme}://${formatHostPort(host, config.port)}/`);
}

/** The pin of the certificate certhub serves from `dataDir`. */
async function servedPin(dataDir: string, config: Readonly<CertConfig>): Promise<string> {
  const { tls } = config;
  if (tls === undefined) {
    const path = join(dataDir, selfSignedCertFile);
    return pinOf(await readServed(path, `certhub makes ${path} when it first serves HTTPS without tls`));
  }
  if (tls.cert_file !== undefined) return pinOf(await readServed(tls.cert_file, 'tls.cert_file names it'));
  const domain = tls.domain ?? '';
  const path = join(dataDir, 'domains', `${domain}.json`);
  const stored = JSON.parse(await readServed(path, `tls.domain is ${domain}`)) as { material?: { cert_pem?: unknown } | null };
  const certPem = stored.material?.cert_pem;
  if (typeof certPem !== 'string')
    throw new Error(
      `${domain} (tls.domain) is not issued yet, and certhub serves a temporary certificate until it is: give --url http://… on loopback, or wait`,
    );
  return pinOf(certPem);
}

async function readServed(path: string, why: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new Error(`cannot read ${path} (${why}): ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
}

/** `sha256:` and the hex SHA-256 of the DER form of the first certificate of `pem`. */
function pinOf(pem: string): string {
  return certificatePin(new X509Certificate(pem).raw);
}

/** Sends one admin request (`body` as JSON when given); the answer whatever its status; throws when certhub cannot be reached. */
export function adminRequest(target: AdminTarget, method: 'GET' | 'POST', path: string, body?: unknown): Promise<AdminAnswer> {
  const url = new URL(path, target.url);
  const json = body === undefined ? undefined : JSON.stringify(body);
  const shown = target.url.origin;
  return new Promise<AdminAnswer>((resolve, reject) => {
    let pinnedSocket: TLSSocket | undefined;
    const fail = (error: Error) => {
      clearTimeout(deadline);
      outgoing.destroy();
      pinnedSocket?.destroy();
      reject(error);
    };
    const deadline = setTimeout(() => fail(new Error(`certhub at ${shown} did not answer within ${adminRequestTimeoutMs / 1000} s`)), adminRequestTimeoutMs);
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const pin = target.pin;
    const outgoing = send(
      url,
      {
        method,
        headers: {
          Authorization: `Bearer ${target.adminKey}`,
          Accept: 'application/json',
          ...(json === undefined ? {} : { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(json)) }),
        },
        // With a pin, the request gets its socket only once certhub showed the pinned certificate
        // (Node uses createConnection only when no agent is given).
        ...(pin === undefined
          ? { agent: false }
          : {
              createConnection: (_options: unknown, done: (error: Error | null, socket: TLSSocket) => void) => {
                pinnedSocket = connectPinned(
                  url,
                  pin,
                  (presented) =>
                    new Error(`${url.origin} serves another certificate (${presented}) than the one certhub serves from this data directory (${pin})`),
                  done,
                );
              },
            }),
      },
      (response: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let received = 0;
        response.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (received > maxAnswerBytes) fail(new Error(`certhub at ${shown} sent an answer larger than ${maxAnswerBytes / 1024} KiB`));
          else chunks.push(chunk);
        });
        response.on('end', () => {
          clearTimeout(deadline);
          resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
        });
        response.on('error', fail);
      },
    );
    outgoing.on('error', (error: NodeJS.ErrnoException) => fail(unreachable(error, shown)));
    outgoing.end(json);
  });
}

function unreachable(error: NodeJS.ErrnoException, shown: string): Error {
  if (error.message.includes('serves another certificate')) return error;
  const cause = error.code === undefined || error.message.includes(error.code) ? error.message : `${error.code} ${error.message}`;
  return new Error(`cannot reach certhub at ${shown}: ${cause}; is certhub run running there (--url names another address)?`);
}

/** The admin API's refusal in its own words (`{"error": "..."}`), or the status. */
export function refusalOf(answer: AdminAnswer): string {
  try {
    const parsed = JSON.parse(answer.body) as { error?: unknown };
    if (typeof parsed.error === 'string') return `${parsed.error} (HTTP ${answer.status})`;
  } catch {
    // Not JSON: the status says it.
  }
  return `HTTP ${answer.status}`;
}
