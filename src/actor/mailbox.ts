import type { MessagePort, Transferable } from 'node:worker_threads';
import type { Message } from './message.js';

/** The part of MessagePort (or a worker's parentPort, or a Worker) that a Mailbox needs. */
export interface PortLike {
  postMessage(message: unknown, transfer?: readonly Transferable[]): void;
  on(event: 'message', listener: (message: unknown) => void): unknown;
  off(event: 'message', listener: (message: unknown) => void): unknown;
}

/**
 * A typed view of a port: `In` is what arrives, `Out` what may be sent. Typing both ends of a
 * channel with the same pair of unions (swapped) makes a message that one side does not know a
 * compile error rather than a silent drop.
 */
export class Mailbox<In extends Message, Out extends Message> {
  private readonly listeners = new Set<(message: unknown) => void>();

  constructor(private readonly port: PortLike) {}

  post(message: Out, transfer?: readonly Transferable[]): void {
    this.port.postMessage(message, transfer);
  }

  /** Calls `handler` for every message; returns the function that stops listening. */
  listen(handler: (message: In) => void): () => void {
    const listener = (message: unknown) => handler(message as In);
    this.listeners.add(listener);
    this.port.on('message', listener);
    return () => {
      this.listeners.delete(listener);
      this.port.off('message', listener);
    };
  }

  /** Stops every listener; a MessagePort is also closed so that it no longer keeps its thread alive. */
  close(): void {
    for (const listener of this.listeners) this.port.off('message', listener);
    this.listeners.clear();
    if (isMessagePort(this.port)) this.port.close();
  }
}

function isMessagePort(port: PortLike): port is PortLike & MessagePort {
  return typeof (port as Partial<MessagePort>).close === 'function' && typeof (port as Partial<MessagePort>).start === 'function';
}
