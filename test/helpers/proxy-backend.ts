// A backend for proxy tests: a plain uWS server on a free loopback port that says who it is and
// which headers it got (/whoami), hashes an upload as it streams in (/upload), streams a long
// deterministic body with backpressure (/download?bytes=N) or chunked (/chunked?bytes=N), refuses an
// upload half-way (/refuse), never answers (/hang), and echoes WebSocket messages (/echo). Every
// request it gets is listed in `requests` (method and path), so a test sees one it was never sent,
// and every close of an /echo WebSocket in `webSocketCloses`, so a test sees what the proxy passed on.
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { ExecutionContext } from 'ava';
import { App, us_listen_socket_close, us_socket_local_port, type HttpRequest, type HttpResponse } from 'uWebSockets.js';

export interface ProxyBackend {
  name: string;
  /** `127.0.0.1:port`, as a route's backend. */
  address: string;
  /** `METHOD /path` of every request received, in order (WebSocket upgrades included). */
  requests: string[];
  /** Every /echo WebSocket that closed, in order. */
  webSocketCloses: WebSocketClose[];
  /** The close of the `count`th /echo WebSocket (1 the first) once it comes; rejects when it has not come within `timeoutMs`. */
  webSocketClosed(count: number, timeoutMs: number): Promise<WebSocketClose>;
  close(): void;
}

/** How an /echo WebSocket ended: the code and reason of the peer's close frame (1006 and no reason when it sent none). */
export interface WebSocketClose {
  code: number;
  reason: string;
}

/** 64 KiB of fixed bytes; a download of N bytes repeats them. */
const block = Buffer.alloc(64 * 1024, 0).map((_, index) => (index * 31 + (index >> 8) * 7) & 0xff);

/** The bytes /download?bytes=N sends, as a stream. */
export function downloadStream(bytes: number): Readable {
  let left = bytes;
  return new Readable({
    read() {
      if (left === 0) return void this.push(null);
      const size = Math.min(left, block.length);
      left -= size;
      this.push(block.subarray(0, size));
    },
  });
}

/** The SHA-256 of what /download?bytes=N sends. */
export async function downloadDigest(bytes: number): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of downloadStream(bytes)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

export async function startProxyBackend(t: ExecutionContext, name: string): Promise<ProxyBackend> {
  const requests: string[] = [];
  const webSocketCloses: WebSocketClose[] = [];
  const closeWaiters = new Set<() => void>();
  const seen = (req: HttpRequest) => requests.push(`${req.getCaseSensitiveMethod()} ${req.getUrl()}`);
  const app = App()
    .any('/whoami', (res, req) => {
      seen(req);
      const headers: Record<string, string> = {};
      req.forEach((key, value) => (headers[key] = value));
      res.writeHeader('content-type', 'application/json').end(JSON.stringify({ name, method: req.getMethod(), url: req.getUrl(), headers }));
    })
    .post('/upload', (res, req) => {
      seen(req);
      const hash = createHash('sha256');
      let bytes = 0;
      let aborted = false;
      res.onAborted(() => (aborted = true));
      res.onData((chunk, isLast) => {
        hash.update(new Uint8Array(chunk));
        bytes += chunk.byteLength;
        if (isLast && !aborted)
          res.cork(() => res.writeHeader('content-type', 'application/json').end(JSON.stringify({ name, bytes, sha256: hash.digest('hex') })));
      });
    })
    .get('/download', (res, req) => {
      seen(req);
      streamOver(res, Number(new URLSearchParams(req.getQuery() ?? '').get('bytes')));
    })
    // write() without a total length: uWS sends the body chunked. Small bodies only (buffered whole).
    .get('/chunked', (res, req) => {
      seen(req);
      const bytes = Number(new URLSearchParams(req.getQuery() ?? '').get('bytes'));
      res.onAborted(() => {});
      void (async () => {
        const chunks: Buffer[] = [];
        for await (const chunk of downloadStream(bytes)) chunks.push(chunk as Buffer);
        res.cork(() => {
          for (const chunk of chunks) res.write(chunk);
          res.end();
        });
      })();
    })
    // Answers 413 at the first piece of the body, without reading the rest.
    .post('/refuse', (res, req) => {
      seen(req);
      let answered = false;
      res.onAborted(() => (answered = true));
      res.onData(() => {
        if (answered) return;
        answered = true;
        res.cork(() => res.writeStatus('413 Payload Too Large').end('too large', true));
      });
    })
    // Never answers: the proxy's wait for a response head runs out.
    .get('/hang', (res, req) => {
      seen(req);
      res.onAborted(() => {});
    })
    .ws('/echo', {
      upgrade: (res, req, context) => {
        seen(req);
        res.upgrade({}, req.getHeader('sec-websocket-key'), req.getHeader('sec-websocket-protocol'), req.getHeader('sec-websocket-extensions'), context);
      },
      message: (ws, message, isBinary) => void ws.send(message, isBinary),
      close: (_ws, code, message) => {
        webSocketCloses.push({ code, reason: Buffer.from(message).toString() });
        for (const waiter of closeWaiters) waiter();
      },
    })
    .any('/*', (res, req) => {
      seen(req);
      res.writeStatus('404 Not Found').end('no such path');
    });
  const socket = await new Promise<Exclude<Parameters<Parameters<typeof app.listen>[2]>[0], false>>((resolve, reject) =>
    app.listen('127.0.0.1', 0, (listening) => (listening === false ? reject(new Error('backend cannot listen')) : resolve(listening))),
  );
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    us_listen_socket_close(socket);
    app.close();
  };
  t.teardown(close);
  const webSocketClosed = (count: number, timeoutMs: number) =>
    new Promise<WebSocketClose>((resolve, reject) => {
      const check = () => {
        const closed = webSocketCloses[count - 1];
        if (closed === undefined) return;
        clearTimeout(timer);
        closeWaiters.delete(check);
        resolve(closed);
      };
      const timer = setTimeout(() => {
        closeWaiters.delete(check);
        reject(new Error(`${name}: ${webSocketCloses.length} WebSockets closed within ${timeoutMs} ms, not ${count}`));
      }, timeoutMs);
      closeWaiters.add(check);
      check();
    });
  return { name, address: `127.0.0.1:${us_socket_local_port(socket)}`, requests, webSocketCloses, webSocketClosed, close };
}

/**
 * uWS's streaming pattern: tryEnd each chunk; on backpressure keep the chunk and where it started, and
 * send the rest from onWritable. uWS keeps calling the one onWritable handler at every drain, so it
 * reads the chunk pending now rather than one it captured.
 */
function streamOver(res: HttpResponse, total: number): void {
  const source = downloadStream(total);
  let aborted = false;
  let pending: { chunk: Buffer; offset: number } | undefined;
  res.onAborted(() => {
    aborted = true;
    source.destroy();
  });
  res.onWritable((at) => {
    if (pending === undefined) return true;
    const [ok, done] = res.tryEnd(pending.chunk.subarray(at - pending.offset), total);
    if (ok || done) {
      pending = undefined;
      source.resume();
    }
    return ok;
  });
  source.on('data', (chunk: Buffer) => {
    if (aborted) return;
    res.cork(() => {
      const offset = res.getWriteOffset();
      const [ok, done] = res.tryEnd(chunk, total);
      if (done || ok) return;
      pending = { chunk, offset };
      source.pause();
    });
  });
}
