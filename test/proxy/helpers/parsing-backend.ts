// A backend that reads what the proxy sends the way a strict origin does (Node's llhttp, lenient
// parsing off) and records it as it came: each request's line and raw header bytes, its body, and
// every head it could not parse. A request line or header the client never sent as one shows here.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ExecutionContext } from 'ava';

export interface ParsedRequest {
  method: string;
  url: string;
  /** Name, value, name, value...: as sent, the bytes of each held one code unit a byte (latin1). */
  rawHeaders: string[];
  /** The body's bytes, one code unit a byte. */
  body: string;
}

export interface ParsingBackend {
  /** `127.0.0.1:port`, as a route's backend. */
  address: string;
  requests: ParsedRequest[];
  /** Heads llhttp refused (each a parse error's code). */
  parseErrors: string[];
  /** The value of `name` (lower case) in a recorded request, latin1; undefined when absent. */
  header(request: ParsedRequest, name: string): string | undefined;
}

function bodyOf(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('latin1')));
    request.on('error', reject);
  });
}

/** Answers each request with JSON naming what it got: its method, URL and Cookie (so a client sees whose answer it has). */
export async function startParsingBackend(t: ExecutionContext): Promise<ParsingBackend> {
  const requests: ParsedRequest[] = [];
  const parseErrors: string[] = [];
  const server = createServer({ insecureHTTPParser: false, requireHostHeader: false }, (request, response) => {
    bodyOf(request).then(
      (body) => {
        // Node decodes header bytes as latin1: each code unit is the byte that came.
        const recorded = { method: request.method ?? '', url: request.url ?? '', rawHeaders: [...request.rawHeaders], body };
        requests.push(recorded);
        response.setHeader('content-type', 'application/json');
        response.end(JSON.stringify({ method: recorded.method, url: recorded.url, cookie: request.headers.cookie ?? null, body: body.length }));
      },
      (error: NodeJS.ErrnoException) => parseErrors.push(`body cut: ${error.code ?? error.message}`),
    );
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    parseErrors.push(error.code ?? error.message);
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as AddressInfo;
  return {
    address: `127.0.0.1:${port}`,
    requests,
    parseErrors,
    header: (request, name) => {
      for (let index = 0; index < request.rawHeaders.length; index += 2)
        if (request.rawHeaders[index]!.toLowerCase() === name) return request.rawHeaders[index + 1];
      return undefined;
    },
  };
}
