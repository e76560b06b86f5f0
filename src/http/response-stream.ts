// Bodies written in pieces, for Reply.stream (a known length: downloads) and Reply.openStream (an
// open-ended body: event streams). Both follow uWS's backpressure protocol, so a slow client makes
// the server wait instead of queueing the whole body in memory.
import type { HttpResponse, RecognizedString } from 'uWebSockets.js';

/** The bytes of a body from `offset` on; any length of at least one byte. */
export type ChunkAt = (offset: number) => Uint8Array;

/**
 * Writes `totalSize` bytes taken from `chunkAt` after the status and headers already written; `done`
 * is called when the last byte has been handed to the socket. Nothing is written after `gone()`.
 */
export function streamSizedBody(res: HttpResponse, totalSize: number, chunkAt: ChunkAt, gone: () => boolean, done: () => void): void {
  if (totalSize === 0) {
    res.cork(() => res.end());
    done();
    return;
  }
  // The chunk being written and the write offset it started at: when the socket takes only part of
  // it, the rest is offered again from the new write offset (uWS's tryEnd/onWritable protocol).
  let pending: { chunk: Uint8Array; startOffset: number } | undefined;
  let handedOut = 0;
  const write = (): boolean => {
    while (!gone()) {
      if (pending === undefined) {
        const chunk = chunkAt(handedOut).subarray(0, totalSize - handedOut);
        if (chunk.byteLength === 0) {
          // A source that runs dry cannot honour the Content-Length already promised: cut the connection.
          res.close();
          return true;
        }
        pending = { chunk, startOffset: res.getWriteOffset() };
        handedOut += chunk.byteLength;
      }
      const [accepted, finished] = res.tryEnd(pending.chunk.subarray(res.getWriteOffset() - pending.startOffset), totalSize);
      if (finished) {
        done();
        return true;
      }
      if (!accepted) return false;
      pending = undefined;
    }
    return true;
  };
  res.onWritable(() => write());
  res.cork(() => void write());
}

/** The writing end of a body of unknown length that stays open until ended or the client goes. */
export interface BodyStream {
  readonly open: boolean;
  /** Writes a piece; false when the socket could not take it all and the rest waits in uWS's buffer. */
  write(chunk: RecognizedString): boolean;
  /** Called each time the waiting bytes have all been sent. */
  onDrain(listener: () => void): void;
  /** Called once, when the stream ends (by `end()` or the client going away). */
  onClose(listener: () => void): void;
  end(): void;
}

class OpenBodyStream implements BodyStream {
  private isOpen: boolean;
  private readonly closeListeners: (() => void)[] = [];
  private drainListener: (() => void) | undefined;

  constructor(
    private readonly res: HttpResponse,
    ended: boolean,
    onAbort: (listener: () => void) => void,
    private readonly done: () => void,
  ) {
    this.isOpen = !ended;
    if (ended) {
      done();
      return;
    }
    res.onWritable(() => {
      this.drainListener?.();
      return true;
    });
    onAbort(() => this.closed());
  }

  get open(): boolean {
    return this.isOpen;
  }

  write(chunk: RecognizedString): boolean {
    if (!this.isOpen) return false;
    let accepted = true;
    this.res.cork(() => {
      accepted = this.res.write(chunk);
    });
    return accepted;
  }

  onDrain(listener: () => void): void {
    this.drainListener = listener;
  }

  onClose(listener: () => void): void {
    if (this.isOpen) this.closeListeners.push(listener);
    else listener();
  }

  end(): void {
    if (!this.isOpen) return;
    this.res.cork(() => this.res.end());
    this.closed();
  }

  private closed(): void {
    if (!this.isOpen) return;
    this.isOpen = false;
    this.done();
    for (const listener of this.closeListeners.splice(0)) listener();
  }
}

/** A BodyStream on `res`, whose status and headers are written; `ended` when there is no body to write (HEAD, client gone). */
export function openBodyStream(res: HttpResponse, ended: boolean, onAbort: (listener: () => void) => void, done: () => void): BodyStream {
  return new OpenBodyStream(res, ended, onAbort, done);
}
