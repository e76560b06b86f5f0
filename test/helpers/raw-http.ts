// HTTP/1.1 over a bare socket, for what fetch hides: several requests pipelined on one connection
// (so a body sent where none belongs shows up as garbage before the next answer), exact header
// bytes, and a client that stops reading.
import { connect, type Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';

export interface RawResponse {
  status: number;
  /** Header names in lower case; a repeated header keeps its values joined by `, `. */
  headers: Map<string, string>;
  body: Buffer;
}

/**
 * Sends `requests` (each `{ method, path, headers }`) on one connection, the last with
 * `Connection: close`, and parses the answers in order: a HEAD answer has no body whatever its
 * Content-Length says, every other answer's body is Content-Length bytes. Anything left over fails.
 */
export async function pipelined(port: number, requests: readonly { method: string; path: string; headers?: Record<string, string> }[]): Promise<RawResponse[]> {
  const text = requests
    .map((request, index) => {
      const headers = { Host: `127.0.0.1:${port}`, ...request.headers, ...(index === requests.length - 1 ? { Connection: 'close' } : {}) };
      return `${request.method} ${request.path} HTTP/1.1\r\n${Object.entries(headers)
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join('')}\r\n`;
    })
    .join('');
  const bytes = await exchange(port, text);
  const responses: RawResponse[] = [];
  let offset = 0;
  for (const request of requests) {
    const end = bytes.indexOf('\r\n\r\n', offset);
    if (end < 0) throw new Error(`no answer to ${request.method} ${request.path}; left: ${bytes.subarray(offset).toString('latin1')}`);
    const [statusLine = '', ...lines] = bytes.subarray(offset, end).toString('latin1').split('\r\n');
    const headers = new Map<string, string>();
    for (const line of lines) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).toLowerCase();
      const value = line.slice(colon + 1).trim();
      headers.set(name, headers.has(name) ? `${headers.get(name)}, ${value}` : value);
    }
    const length = request.method === 'HEAD' ? 0 : Number(headers.get('content-length') ?? '0');
    const body = bytes.subarray(end + 4, end + 4 + length);
    responses.push({ status: Number(statusLine.split(' ')[1]), headers, body });
    offset = end + 4 + length;
  }
  if (offset !== bytes.length) throw new Error(`${bytes.length - offset} bytes after the last answer: ${bytes.subarray(offset).toString('latin1')}`);
  return responses;
}

/** Writes `text`, then reads until the server closes the connection. */
export function exchange(port: number, text: string | Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(port, '127.0.0.1', () => socket.write(text));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks)));
  });
}

/** A connection that has sent `text` and reads nothing until told: `socket.resume()` reads on. */
export function stalledClient(port: number, text: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.pause();
      socket.write(text);
      resolve(socket);
    });
    socket.on('error', reject);
  });
}

/** What a server answered to bytes written on one connection. */
export interface RawAnswer {
  bytes: Buffer;
  /** Each answer's status, in order (a status line at the start of the bytes or after a blank line). */
  statuses: number[];
  /** The server closed the connection (rather than going quiet). */
  closed: boolean;
  /** Date.now() when the first byte of the answer came; undefined when none did. */
  firstByteAt?: number;
  /** Date.now() when the request was written (after the TCP and TLS handshakes). */
  sentAt?: number;
}

/**
 * Writes `text` on a new connection (plain, or TLS naming `servername`), then reads until the server
 * closes it or sends nothing for `quietMs`.
 */
export function rawExchange(port: number, text: string | Buffer, options: { servername?: string; quietMs?: number } = {}): Promise<RawAnswer> {
  const quietMs = options.quietMs ?? 1500;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let firstByteAt: number | undefined;
    let sentAt: number | undefined;
    // The quiet time runs from the write: a slow TCP or TLS handshake on a loaded machine is not silence.
    const write = () => {
      sentAt = Date.now();
      socket.write(typeof text === 'string' ? Buffer.from(text, 'latin1') : text);
      if (chunks.length === 0) {
        clearTimeout(quiet);
        quiet = setTimeout(() => done(false), quietMs);
      }
    };
    const socket: Socket =
      options.servername === undefined
        ? connect(port, '127.0.0.1', write)
        : connectTls({ host: '127.0.0.1', port, servername: options.servername, rejectUnauthorized: false }, write);
    let quiet = setTimeout(() => done(false), quietMs);
    const done = (closed: boolean) => {
      clearTimeout(quiet);
      socket.destroy();
      const bytes = Buffer.concat(chunks);
      const statuses = [...bytes.toString('latin1').matchAll(/(?:^|\r\n\r\n)HTTP\/1\.1 (\d{3})/g)].map((match) => Number(match[1]));
      resolve({ bytes, statuses, closed, ...(firstByteAt === undefined ? {} : { firstByteAt }), ...(sentAt === undefined ? {} : { sentAt }) });
    };
    socket.on('data', (chunk: Buffer) => {
      firstByteAt ??= Date.now();
      chunks.push(chunk);
      clearTimeout(quiet);
      quiet = setTimeout(() => done(false), quietMs);
    });
    // A reset after the server refused is a close too; a failure to connect is not.
    socket.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' || error.code === 'EPIPE' ? done(true) : reject(error)));
    socket.on('close', () => done(true));
  });
}
