// The client's HTTP: node:http/https with keep-alive agents. Bodies arrive as Buffers on 'data'
// events, which keeps the client from capping a fast link (web streams cost several times more per byte).
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

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

/** One request; `keepBody` false discards the body after counting it. */
export function exchange(url: URL, agent: Agent, options: { method?: string; body?: Buffer; signal?: AbortSignal } = {}): Promise<Exchange> {
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const request = send(
      url,
      {
        method: options.method ?? 'GET',
        agent,
        headers: options.body === undefined ? {} : { 'Content-Length': String(options.body.length), 'Content-Type': 'application/octet-stream' },
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      },
      (response: IncomingMessage) => {
        resolve({
          status: response.statusCode ?? 0,
          body: (onChunk) =>
            new Promise((done, fail) => {
              const chunks: Buffer[] = [];
              response.on('data', (chunk: Buffer) => {
                if (onChunk === undefined) chunks.push(chunk);
                else onChunk(chunk);
              });
              response.on('end', () => done(onChunk === undefined ? Buffer.concat(chunks) : undefined));
              response.on('error', fail);
              response.on('aborted', () => fail(new Error('the server closed the connection mid-response')));
            }),
        });
      },
    );
    request.on('error', reject);
    request.end(options.body);
  });
}

export async function getJson<T>(url: URL, agent: Agent): Promise<{ status: number; value: T }> {
  const response = await exchange(url, agent);
  const body = (await response.body()) ?? Buffer.alloc(0);
  try {
    return { status: response.status, value: JSON.parse(body.toString('utf8')) as T };
  } catch {
    throw new Error(`${url.href} did not answer JSON (HTTP ${response.status})`);
  }
}
