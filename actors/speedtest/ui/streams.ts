// Keeps the pipe full: parallel streams started a little apart, each starting its next transfer as soon
// as the last one ends, until the phase is over.
import { streamCount, streamStaggerMs } from './method.js';
import { pause } from './pause.js';

/** One request of one stream; it must settle soon after `signal` aborts. */
export type Transfer = (stream: number, signal: AbortSignal) => Promise<void>;

/**
 * Runs the streams until `phase` aborts. A transfer that fails while the phase is still on ends the
 * phase for every stream, and its error is what this rejects with once they have all stopped.
 */
export async function keepStreamsBusy(phase: AbortController, transfer: Transfer): Promise<void> {
  const { signal } = phase;
  const streams = Array.from({ length: streamCount }, async (_, stream) => {
    await pause(stream * streamStaggerMs, signal);
    while (!signal.aborted) {
      try {
        await transfer(stream, signal);
      } catch (error) {
        if (signal.aborted) return;
        phase.abort(error);
        throw error;
      }
    }
  });
  const failure = (await Promise.allSettled(streams)).find((outcome) => outcome.status === 'rejected');
  if (failure !== undefined) throw failure.reason;
}
