// One uWebSockets.js app per front thread, with what every front needs around it: listening, counting
// requests in flight, and draining on stop. Several front threads may listen on one port: uSockets
// binds with SO_REUSEPORT, and the kernel spreads connections across the threads.
import { App, us_listen_socket_close, us_socket_local_port, type TemplatedApp, type us_listen_socket } from 'uWebSockets.js';

export class HttpServer {
  readonly app: TemplatedApp = App();
  private listenSocket: us_listen_socket | undefined;
  private inFlight = 0;
  private idleWaiters: (() => void)[] = [];
  private readonly streams = new Set<() => void>();
  private closed = false;

  /**
   * `onThreadExit` comes from the actor context: the app must be closed before its thread ends,
   * or Node aborts the process while tearing the thread down.
   */
  constructor(onThreadExit: (close: () => void) => void) {
    onThreadExit(() => this.close());
  }

  /** Listens on host:port (0 picks a free port) and resolves with the port. */
  listen(host: string, port: number): Promise<number> {
    return new Promise((resolve, reject) => {
      this.app.listen(host, port, (socket) => {
        if (socket === false) {
          reject(new Error(`cannot listen on ${formatHostPort(host, port)}: address in use or not available`));
          return;
        }
        this.listenSocket = socket;
        resolve(us_socket_local_port(socket));
      });
    });
  }

  get listening(): boolean {
    return this.listenSocket !== undefined;
  }

  /** Counts one request as in flight; call the returned function exactly once when it is answered or aborted. */
  begin(): () => void {
    this.inFlight++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.inFlight--;
      if (this.inFlight === 0) for (const waiter of this.idleWaiters.splice(0)) waiter();
    };
  }

  get requestsInFlight(): number {
    return this.inFlight;
  }

  /** Registers a long-lived response (an event stream) that drain() must close rather than wait for. */
  addStream(close: () => void): () => void {
    this.streams.add(close);
    return () => this.streams.delete(close);
  }

  /** Stops accepting, closes streams, waits up to `graceMs` for requests in flight, then closes every socket. */
  async drain(graceMs: number): Promise<void> {
    if (this.listenSocket !== undefined) {
      us_listen_socket_close(this.listenSocket);
      this.listenSocket = undefined;
    }
    for (const close of [...this.streams]) close();
    this.streams.clear();
    if (this.inFlight > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, graceMs);
        this.idleWaiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    this.close();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.listenSocket = undefined;
    this.app.close();
  }
}

export function formatHostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** The URL a person opens for a server bound to host:port; a wildcard bind is shown as loopback. */
export function urlFor(host: string, port: number, path = '/'): string {
  const shown = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${formatHostPort(shown, port)}${path}`;
}
