// The client gives up instead of waiting forever: every connection it opens has a deadline to connect,
// one for the first byte of the answer once the request is sent, and one for each next byte while
// data moves (a stall). The socket's idle timer carries all three: Node resets it on every read and on
// every write handed to the socket, so a transfer that keeps moving never trips it.
import type { Socket } from 'node:net';
import { OutpostError } from '../../../src/errors.js';

/** The step of the test a connection belongs to, named in every message. */
export type Phase = 'server check' | 'ping' | 'download' | 'upload' | 'save';

export interface Deadline {
  phase: Phase;
  /** The server as the user gave it. */
  server: string;
  /** How long connecting, the first byte or the next byte may take. */
  timeoutMs: number;
}

/** Where a connection is: what it waits for when its deadline passes. */
export type Stage = 'connecting' | 'sending' | 'waiting' | 'receiving';

export class DeadlineError extends OutpostError {
  override readonly name: string = 'DeadlineError';
  constructor(
    readonly deadline: Deadline,
    readonly stage: Stage,
  ) {
    super('ERR_TIMEOUT', deadlineMessage(deadline, stage));
  }
}

function deadlineMessage({ phase, server, timeoutMs }: Deadline, stage: Stage): string {
  const seconds = `${timeoutMs / 1000} s`;
  switch (stage) {
    case 'connecting':
      return `${phase}: could not connect to ${server} within ${seconds}`;
    case 'sending':
      return `${phase}: ${server} took no data for ${seconds} (stalled while sending)`;
    case 'waiting':
      return `${phase}: ${server} accepted the request but sent no answer within ${seconds}`;
    case 'receiving':
      return `${phase}: the answer from ${server} stalled: no data for ${seconds}`;
    default:
      throw new Error(`unknown stage ${String(stage satisfies never)}`);
  }
}

export interface SocketGuard {
  /** What the connection waits for now; the message of a missed deadline follows it. */
  stage: Stage;
  /** Stops watching (the socket may go back to a keep-alive pool). */
  release(): void;
}

/**
 * Arms `deadline` on `socket`; `fail` is called once if it passes. A socket still connecting is in
 * the `connecting` stage until it connects (and, for TLS, finishes its handshake), then in `next`.
 */
export function guardSocket(socket: Socket, deadline: Deadline, next: Stage, fail: (error: DeadlineError) => void): SocketGuard {
  const guard: SocketGuard = {
    stage: socket.connecting ? 'connecting' : next,
    release() {
      socket.setTimeout(0);
      socket.off('timeout', onTimeout);
      socket.off(connectedEvent, onConnected);
    },
  };
  // A TLS socket is connected once its handshake is done.
  const connectedEvent = 'encrypted' in socket ? 'secureConnect' : 'connect';
  const onConnected = () => {
    if (guard.stage === 'connecting') guard.stage = next;
  };
  const onTimeout = () => {
    guard.release();
    fail(new DeadlineError(deadline, guard.stage));
  };
  socket.once(connectedEvent, onConnected);
  socket.on('timeout', onTimeout);
  socket.setTimeout(deadline.timeoutMs);
  return guard;
}
