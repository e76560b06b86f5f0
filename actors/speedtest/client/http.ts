// The client's HTTP: node:http/https with keep-alive agents. Bodies arrive as Buffers on 'data'
// events, which keeps the client from capping a fast link (web streams cost several times more per byte).
// Every request carries a deadline (see deadline.ts).
import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { guardSocket, type Deadline, type SocketGuard } from './deadline.js';
import { describeFailure } from './failures.js';

export type Agent = HttpAgent;

export function createAgent(url: URL, maxSockets: number): Agent {
  const options = { keepAlive: true, maxSockets };
  return url.protocol === 'https:' ? new HttpsAgent(options) : new HttpAgent(options);
}

export interface Exchange {
  status: number;
  /** Calls `onChunk` with each piece of the body as it arrives; resolves at its end. */
  body(onChunk?: (chunk: Buffer) => void): Promise<Buffer | undefined>;
}

/**
 * A request body is handed to the socket in pieces, each once the last has drained: every piece
 * restarts the stall deadline, so a slow upload that moves is never taken for a stall. A piece is
 * what the socket took in about a quarter of a second so far (16 KiB to 1 MiB): small on a slow link,
 * few writes on a fast one.
 */
const bodyPieceBytes = { min: 16 * 1024, max: 1024 * 1024 };
const bodyPieceSeconds = 0.25;

/** One request under `deadline`; the body is read (or counted) through the answer's `body`. */
export function exchange(
  url: URL,
  agent: Agent,
  deadline: Deadline,
  options: { method?: string; body?: Buffer; contentType?: string } = {},
): Promise<Exchange> {
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    let guard: SocketGuard | undefined;
    let failBody: ((error: Error) => void) | undefined;
    /** A failure after the answer began and before its body was asked for waits for `body`. */
    let failure: Error | undefined;
    const fail = (error: Error) => {
      guard?.release();
      request.destroy();
      failure ??= describeFailure(error, deadline);
      if (failBody === undefined) reject(failure);
      else failBody(failure);
    };
    const request = send(
      url,
      {
        method: options.method ?? 'GET',
        agent,
        headers:
          options.body === undefined
            ? {}
            : { 'Content-Length': String(options.body.length), 'Content-Type': options.contentType ?? 'application/octet-stream' },
      },
      (response: IncomingMessage) => {
        if (guard !== undefined) guard.stage = 'receiving';
        resolve({
          status: response.statusCode ?? 0,
          body: (onChunk) =>
            new Promise((done, failed) => {
              if (failure !== undefined) return failed(failure);
              failBody = failed;
              const chunks: Buffer[] = [];
              response.on('data', (chunk: Buffer) => {
                if (onChunk === undefined) chunks.push(chunk);
                else onChunk(chunk);
              });
              response.on('end', () => {
                guard?.release();
                done(onChunk === undefined ? Buffer.concat(chunks) : undefined);
              });
              response.on('error', fail);
              response.on('aborted', () => fail(new Error('the server closed the connection mid-response')));
            }),
        });
      },
    );
    request.on('socket', (socket) => {
      guard = guardSocket(socket, deadline, options.body === undefined ? 'waiting' : 'sending', fail);
    });
    request.on('finish', () => {
      if (guard?.stage === 'sending') guard.stage = 'waiting';
    });
    request.on('error', fail);
    writeBody(request, options.body);
  });
}

function writeBody(request: ClientRequest, body: Buffer | undefined): void {
  if (body === undefined) {
    request.end();
    return;
  }
  let offset = 0;
  let pieceBytes = bodyPieceBytes.min;
  const next = () => {
    while (offset < body.length) {
      const piece = body.subarray(offset, offset + pieceBytes);
      offset += piece.length;
      const handedAt = performance.now();
      if (!request.write(piece)) {
        request.once('drain', () => {
          const bytesPerSecond = piece.length / Math.max((performance.now() - handedAt) / 1000, 1e-6);
          pieceBytes = Math.round(Math.min(bodyPieceBytes.max, Math.max(bodyPieceBytes.min, bytesPerSecond * bodyPieceSeconds)));
          next();
        });
        return;
      }
    }
    request.end();
  };
  next();
}

export async function getJson<T>(url: URL, agent: Agent, deadline: Deadline): Promise<{ status: number; value: T }> {
  const response = await exchange(url, agent, deadline);
  const body = (await response.body()) ?? Buffer.alloc(0);
  try {
    return { status: response.status, value: JSON.parse(body.toString('utf8')) as T };
  } catch {
    throw new Error(`${url.href} did not answer JSON (HTTP ${response.status})`);
  }
}
