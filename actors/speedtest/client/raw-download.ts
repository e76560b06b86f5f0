// Downloads for the measurement, read straight off the socket (net's `onread`), bytes counted and never
// copied. On loopback node:http's Buffer-per-chunk stream reads 4-8 Gbit/s where this reads what the
// server sends: the client must not be what caps the result. The server always answers with
// Content-Length, never chunked.
//
// What a transfer of a few milliseconds (25 MB on loopback) cannot afford inside its measurement:
// connecting (so every stream connects first and the requests go out together), closing (so the
// connections close once every stream is done), and fresh read buffers (a megabyte a connection costs
// hundreds of page faults on first touch, so one buffer, touched once, serves every connection).
import { connect, type Socket } from 'node:net';
import { guardSocket, type Deadline, type SocketGuard } from './deadline.js';
import { describeFailure } from './failures.js';

const readBufferBytes = 1024 * 1024;
/** The bytes read are never looked at past the headers (which are copied out), so connections share it. */
let sharedReadBuffer: Buffer | undefined;
const headerEnd = Buffer.from('\r\n\r\n');

export interface DownloadConnection {
  /**
   * GETs the connection's URL and calls `onBytes` with the body's running total as bytes land;
   * resolves with the body length. Reading stops at the end of the body; the socket stays open.
   */
  fetch(onBytes: (total: number) => void): Promise<number>;
  close(): void;
}

/** Connects to `url`'s server under `deadline` (plain HTTP/1.1); resolves once connected. */
export function connectForDownload(url: URL, deadline: Deadline): Promise<DownloadConnection> {
  sharedReadBuffer ??= Buffer.alloc(readBufferBytes);
  const readBuffer = sharedReadBuffer;
  return new Promise((resolveConnected, rejectConnected) => {
    let header = Buffer.alloc(0);
    let expected = -1;
    let received = 0;
    let onBytes: (total: number) => void = () => {};
    let outcome: { resolve(bytes: number): void; reject(error: Error): void } | undefined;
    /** Set once the download has ended, well or not; a failure is kept for a fetch that comes after it. */
    let ended: { failure?: Error } | undefined;
    const finish = (error?: Error) => {
      if (ended !== undefined) return;
      guard.release();
      if (error !== undefined) socket.destroy();
      ended = error === undefined ? {} : { failure: describeFailure(error, deadline) };
      if (outcome === undefined) rejectConnected(ended.failure ?? new Error('the connection ended before its request'));
      else if (ended.failure === undefined) outcome.resolve(received);
      else outcome.reject(ended.failure);
    };
    const countBody = (count: number) => {
      received += count;
      onBytes(received);
      if (received >= expected) finish();
    };
    const socket: Socket = connect({
      host: url.hostname.replace(/^\[|\]$/g, ''),
      port: Number(url.port === '' ? 80 : url.port),
      onread: {
        buffer: readBuffer,
        // Returning false pauses reading: a finished or failed download does.
        callback: (length: number, buffer: Uint8Array): boolean => {
          if (ended !== undefined) return false;
          if (expected >= 0) {
            countBody(length);
            return ended === undefined;
          }
          guard.stage = 'receiving';
          header = Buffer.concat([header, buffer.subarray(0, length)]);
          const end = header.indexOf(headerEnd);
          if (end < 0) {
            if (header.length > 16 * 1024) finish(new Error('the response headers never ended'));
            return ended === undefined;
          }
          const head = header.subarray(0, end).toString('latin1');
          const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1]);
          const contentLength = /\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1];
          if (status !== 200 || contentLength === undefined) {
            finish(new Error(status !== 200 ? `the server answered HTTP ${status}` : 'the server answered without Content-Length'));
            return false;
          }
          expected = Number(contentLength);
          const bodyStart = header.length - (end + headerEnd.length);
          if (expected === 0) finish();
          else if (bodyStart > 0) countBody(bodyStart);
          return ended === undefined;
        },
      },
    });
    // Until the request goes out, only connecting has a deadline.
    let guard: SocketGuard = guardSocket(socket, deadline, 'connecting', finish);
    socket.on('error', (error) => finish(error));
    socket.on('close', () => {
      if (expected < 0) finish(new Error('the server closed the connection before answering'));
      else finish(received >= expected ? undefined : new Error(`the server closed the connection after ${received} of ${expected} bytes`));
    });
    socket.once('connect', () => {
      guard.release();
      resolveConnected({
        fetch(count) {
          return new Promise((resolve, reject) => {
            if (ended?.failure !== undefined) return reject(ended.failure);
            onBytes = count;
            outcome = { resolve, reject };
            guard = guardSocket(socket, deadline, 'waiting', finish);
            socket.write(`GET ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\nAccept-Encoding: identity\r\nConnection: close\r\n\r\n`);
          });
        },
        close: () => socket.destroy(),
      });
    });
  });
}
