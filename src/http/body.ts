import type { HttpResponse } from 'uWebSockets.js';
import { OutpostError } from '../errors.js';

/** Bodies a route reads whole (JSON, small forms) are at most this large unless it says otherwise. */
export const defaultBodyLimit = 64 * 1024;

export interface BodyOptions {
  /** Bytes the body may have; past them the request fails with 413. */
  limit: number;
  /** What the 413 message calls the body (`upload larger than 100 bytes`); `request body` by default. */
  what?: string;
}

export interface StreamedBodyOptions extends BodyOptions {
  /** Each chunk as it arrives; it is valid only during the call (uWS reuses the memory). */
  onChunk: (chunk: Uint8Array) => void;
}

/**
 * Reads a request body of at most `limit` bytes: whole, or chunk by chunk to `onChunk` (resolving
 * with the byte count). It must be called before the handler first returns: uWS drops body chunks
 * that arrive while no onData handler is set. An empty body arrives as one empty last chunk.
 */
export function readBody(res: HttpResponse, contentLength: string | undefined, options: StreamedBodyOptions): Promise<number>;
export function readBody(res: HttpResponse, contentLength: string | undefined, options: BodyOptions): Promise<Buffer>;
export function readBody(res: HttpResponse, contentLength: string | undefined, options: BodyOptions | StreamedBodyOptions): Promise<Buffer | number>;
export function readBody(res: HttpResponse, contentLength: string | undefined, options: BodyOptions | StreamedBodyOptions): Promise<Buffer | number> {
  const { limit } = options;
  const tooLarge = () => new OutpostError('ERR_BODY_TOO_LARGE', `${options.what ?? 'request body'} larger than ${limit} bytes`);
  const onChunk = 'onChunk' in options ? options.onChunk : undefined;
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
      // The ArrayBuffer is only valid during this call: a kept chunk is copied.
      if (onChunk !== undefined) onChunk(new Uint8Array(chunk));
      else chunks.push(Buffer.from(new Uint8Array(chunk)));
      if (isLast) resolve(onChunk !== undefined ? size : Buffer.concat(chunks, size));
    });
  });
}
