// Bodies in pieces through Reply and readBody: a download that waits for a slow client instead of
// queueing itself in memory, and an upload counted chunk by chunk as it arrives, never buffered.
import { createHash, randomBytes } from 'node:crypto';
import type { Socket } from 'node:net';
import test from 'ava';
import type { ChunkAt } from '../../src/http/response-stream.js';
import { pipelined, stalledClient } from '../helpers/raw-http.js';
import { withServer } from '../helpers/with-server.js';

const MiB = 1024 * 1024;
const downloadSize = 64 * MiB;
// An odd length, so chunks straddle the pattern's end at varying offsets.
const pattern = randomBytes(MiB + 7);
const chunkAt: ChunkAt = (offset) => {
  const start = offset % pattern.length;
  return pattern.subarray(start, Math.min(start + 256 * 1024, pattern.length));
};

function expectedDigest(size: number): string {
  const hash = createHash('sha256');
  for (let offset = 0; offset < size; ) {
    const chunk = chunkAt(offset).subarray(0, size - offset);
    hash.update(chunk);
    offset += chunk.length;
  }
  return hash.digest('hex');
}

/** A promise and the function that resolves it (Promise.withResolvers comes with Node 22). */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

/** What the download route saw: bytes handed to uWS so far, and whether the client went away. */
const served = { handedOut: 0, started: deferred(), aborted: deferred() };

function readAll(socket: Socket): Promise<Buffer> {
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  return new Promise((resolve) => socket.on('close', () => resolve(Buffer.concat(chunks))));
}

test.serial(
  'a download waits for a client that stops reading, then delivers every byte in order',
  withServer,
  ({ router }) => {
    router.get('/download', (_request, reply) => {
      reply.stream(200, { 'Content-Type': 'application/octet-stream' }, downloadSize, (offset) => {
        const chunk = chunkAt(offset);
        served.handedOut = Math.max(served.handedOut, offset + chunk.length);
        return chunk;
      });
      served.started.resolve();
    });
  },
  async (t, { url }) => {
    const port = Number(new URL(url).port);
    const client = await stalledClient(port, `GET /download HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`);
    await served.started.promise;
    // The socket buffers take some megabytes; without backpressure all 64 would be handed out at once.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const stalledAt = `${(served.handedOut / MiB).toFixed(1)} MiB handed out to a client that reads nothing`;
    t.log(stalledAt);
    t.true(served.handedOut < downloadSize / 2, stalledAt);
    const received = readAll(client);
    client.resume();
    const bytes = await received;
    const headerEnd = bytes.indexOf('\r\n\r\n') + 4;
    t.regex(bytes.subarray(0, headerEnd).toString('latin1'), new RegExp(`^HTTP/1.1 200 OK\r\n[^]*Content-Length: ${downloadSize}\r\n`));
    t.is(bytes.length - headerEnd, downloadSize);
    t.is(createHash('sha256').update(bytes.subarray(headerEnd)).digest('hex'), expectedDigest(downloadSize));
  },
);

test.serial(
  'a client that leaves in the middle of a download stops it; the server serves on',
  withServer,
  ({ router }) => {
    served.handedOut = 0;
    served.started = deferred();
    served.aborted = deferred();
    router.get('/download', (_request, reply) => {
      reply.onAbort(() => served.aborted.resolve());
      reply.stream(200, {}, downloadSize, (offset) => {
        served.handedOut = offset;
        return chunkAt(offset);
      });
      served.started.resolve();
    });
    router.get('/ping', (_request, reply) => reply.text(200, 'pong'));
  },
  async (t, { url }) => {
    const port = Number(new URL(url).port);
    const client = await stalledClient(port, `GET /download HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    await served.started.promise;
    client.destroy();
    await served.aborted.promise;
    const atAbort = served.handedOut;
    t.is(await (await fetch(`${url}/ping`)).text(), 'pong');
    t.is(served.handedOut, atAbort, 'nothing was asked of the source after the client left');
  },
);

test(
  'an upload is handed over chunk by chunk as it arrives, counted, and refused past its limit',
  withServer,
  ({ router }) => {
    router.post('/upload', async (request, reply) => {
      const hash = createHash('sha256');
      let chunks = 0;
      const size = await request.readBody({
        limit: 8 * MiB,
        what: 'upload',
        onChunk: (chunk) => {
          chunks++;
          hash.update(chunk);
        },
      });
      reply.json(200, { size, chunks, sha256: hash.digest('hex') });
    });
  },
  async (t, { url }) => {
    const body = randomBytes(5 * MiB);
    const response = await fetch(`${url}/upload`, { method: 'POST', body });
    const result = (await response.json()) as { size: number; chunks: number; sha256: string };
    t.is(result.size, body.length);
    t.is(result.sha256, createHash('sha256').update(body).digest('hex'), 'every chunk was whole when handed over');
    t.true(result.chunks > 1, `${result.chunks} chunks`);
    const empty = (await (await fetch(`${url}/upload`, { method: 'POST' })).json()) as { size: number; chunks: number };
    t.deepEqual([empty.size, empty.chunks], [0, 1], 'an empty body arrives as one empty chunk');

    // A head that declares too much is refused before its body: sent without one, as a client whose
    // upload the answer cut short (fetch, still writing when the 413 and close came, fails at random).
    const [declared] = await pipelined(Number(new URL(url).port), [{ method: 'POST', path: '/upload', headers: { 'Content-Length': String(8 * MiB + 1) } }]);
    t.is(declared?.status, 413);
    t.deepEqual(JSON.parse(declared?.body.toString() ?? ''), { error: `upload larger than ${8 * MiB} bytes` });
    // No Content-Length: the limit is found while counting.
    const streamed = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let index = 0; index < 9; index++) controller.enqueue(randomBytes(MiB));
        controller.close();
      },
    });
    const chunked = await fetch(`${url}/upload`, { method: 'POST', body: streamed, duplex: 'half' });
    t.is(chunked.status, 413);
    t.deepEqual(await chunked.json(), { error: `upload larger than ${8 * MiB} bytes` });
  },
);
