// Downloads for the measurement, read straight off the socket: one reusable 1 MiB read buffer a
// connection (net's `onread`), bytes counted and never copied. On loopback this reads 25-32 Gbit/s
// where node:http's Buffer-per-chunk stream reads 4-8 (iperf3 here: 18): the client must not be what
// caps the result. The server always answers with Content-Length, never chunked.
import { connect } from 'node:net';
import { guardSocket, type Deadline } from './deadline.js';
import { describeFailure } from './failures.js';

const readBufferBytes = 1024 * 1024;
const headerEnd = Buffer.from('\r\n\r\n');

/**
 * GETs `url` over plain HTTP/1.1 under `deadline` and calls `onBytes` with the body's running total
 * as bytes land; resolves with the body length.
 */
export function downloadCounting(url: URL, deadline: Deadline, onBytes: (total: number) => void): Promise<number> {
  return new Promise((resolve, reject) => {
    let header = Buffer.alloc(0);
    let expected = -1;
    let received = 0;
    let settled = false;
    const finish = (error?: Error) => {
      if (settled) return;
      settled = true;
      guard.release();
      socket.destroy();
      if (error === undefined) resolve(received);
      else reject(describeFailure(error, deadline));
    };
    const countBody = (count: number) => {
      received += count;
      onBytes(received);
      if (received >= expected) finish();
    };
    const socket = connect({
      host: url.hostname.replace(/^\[|\]$/g, ''),
      port: Number(url.port === '' ? 80 : url.port),
      onread: {
        buffer: Buffer.allocUnsafe(readBufferBytes),
        // Returning false pauses reading; only a finished or failed download does.
        callback: (length: number, buffer: Uint8Array): boolean => {
          if (expected >= 0) {
            countBody(length);
            return !settled;
          }
          guard.stage = 'receiving';
          header = Buffer.concat([header, buffer.subarray(0, length)]);
          const end = header.indexOf(headerEnd);
          if (end < 0) {
            if (header.length > 16 * 1024) finish(new Error('the response headers never ended'));
            return !settled;
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
          return !settled;
        },
      },
    });
    const guard = guardSocket(socket, deadline, 'waiting', finish);
    socket.on('connect', () => {
      socket.write(`GET ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\nAccept-Encoding: identity\r\nConnection: close\r\n\r\n`);
    });
    socket.on('error', (error) => finish(error));
    socket.on('close', () => {
      if (expected < 0) finish(new Error('the server closed the connection before answering'));
      else finish(received >= expected ? undefined : new Error(`the server closed the connection after ${received} of ${expected} bytes`));
    });
  });
}
