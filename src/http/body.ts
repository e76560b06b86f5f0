import type { HttpResponse } from 'uWebSockets.js';
import { OutpostError } from '../errors.js';

/**
 * Reads a whole request body of at most `limit` bytes. It must be called before the handler first
 * returns: uWS drops body chunks that arrive while no onData handler is set.
 */
export function readBody(res: HttpResponse, contentLength: string | undefined, limit: number): Promise<Buffer> {
  const tooLarge = () => new OutpostError('ERR_BODY_TOO_LARGE', `request body larger than ${limit} bytes`);
  return new Promise((resolve, reject) => {
    if (contentLength !== undefined && Number(contentLength) > limit) {
      // Still set a handler so uWS keeps a consistent state; the reply closes the connection.
      res.onData(() => {});
      reject(tooLarge());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    res.onData((chunk, isLast) => {
      if (failed) return;
      size += chunk.byteLength;
      if (size > limit) {
        failed = true;
        reject(tooLarge());
        return;
      }
      // The ArrayBuffer is only valid during this call: copy it.
      chunks.push(Buffer.from(new Uint8Array(chunk)));
      if (isLast) resolve(Buffer.concat(chunks, size));
    });
  });
}

/** Parses a JSON body; malformed JSON is the client's error. */
export function parseJsonBody(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw new OutpostError('ERR_BAD_REQUEST', 'request body is not valid JSON');
  }
}
