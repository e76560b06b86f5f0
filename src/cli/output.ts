// stdout and stderr as a command and a server need them. A closed pipe (`netspeed server | head -1`,
// a log collector that went away) is an `error` event on the stream: unhandled, it kills the process,
// so it is taken as "nobody reads this any more" and the process goes on. And a pipe is written
// asynchronously, so a command that prints and exits at once would cut its output at the pipe's
// buffer: every exit waits until what was written has left the process.
import type { Writable } from 'node:stream';

const outputStreams = [process.stdout, process.stderr] as const;

/** Makes a write error on stdout or stderr (EPIPE) end the writing to it, not the process. */
export function surviveClosedOutput(): void {
  for (const stream of outputStreams) {
    if (stream.listenerCount('error') === 0) stream.on('error', () => {});
  }
}

/** Whether writing to `stream` can still reach a reader: false once it failed or was closed. */
export function canWrite(stream: Writable): boolean {
  return !stream.destroyed && stream.errored === null && !stream.writableEnded;
}

/**
 * Exits with `code` once stdout and stderr have handed over everything written to them (or have
 * failed), at most after `boundMs` when given: a reader that stops reading without closing holds a
 * printing command, as it would `cat`, but never a server's bounded shutdown.
 */
export async function exitAfterOutput(code: number, boundMs?: number): Promise<never> {
  const written = Promise.all(outputStreams.map(handedOver));
  await (boundMs === undefined ? written : Promise.race([written, new Promise((resolve) => setTimeout(resolve, boundMs).unref())]));
  process.exit(code);
}

function handedOver(stream: Writable): Promise<void> {
  if (!canWrite(stream)) return Promise.resolve();
  // Writes complete in order: the callback of an empty one runs after every earlier write is out.
  return new Promise((resolve) => stream.write('', () => resolve()));
}
