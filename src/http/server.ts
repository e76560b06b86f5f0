// One uWebSockets.js app per front thread, with what every front needs around it: listening, counting
// requests in flight, and draining on stop. Several front threads may listen on one port: uSockets
// binds with SO_REUSEPORT, and the kernel spreads connections across the threads.
//
// With TLS, a new certificate is put in place the way nginx reloads: a second app with the same routes
// listens on the same port (SO_REUSEPORT again), then the first stops listening (listen.ts).
// Connections it has keep being served by it until they close; new handshakes get the new certificate.
import { us_listen_socket_close, us_socket_local_port, type TemplatedApp, type us_listen_socket } from 'uWebSockets.js';
import { ClientSlots } from './client-slots.js';
import { afterNextPoll, listenOn } from './listen.js';
import { tlsApp } from './tls-app.js';
import type { FrontTls, TlsMaterial } from './tls-material.js';
import { plainApp } from './uws-app.js';
import { HttpRefusal } from './refusal.js';

/** Registers routes on an app; kept, so that an app made later (a new certificate) gets them too. */
export type RouteInstaller = (app: TemplatedApp) => void;

/** Event streams one front thread keeps open at once, unless configured: each holds a socket and a share of every push. */
export const defaultMaxStreams = 256;

/** What one front thread answers at once. */
export interface FrontLimits {
  /** Event streams open together; one more is refused 503 (`defaultMaxStreams`). */
  maxStreams?: number;
  /** Requests in flight from one client address (IPv6: one /64); one more is refused 429 (client-slots.ts). */
  requestsPerClient?: number;
}

export class HttpServer {
  private current: TemplatedApp;
  /** Apps that stopped listening when a new certificate came, still serving their connections. */
  private readonly retired: TemplatedApp[] = [];
  private readonly installers: RouteInstaller[] = [];
  private listenSocket: us_listen_socket | undefined;
  private bound: { host: string; port: number } | undefined;
  private inFlight = 0;
  private idleWaiters: (() => void)[] = [];
  private readonly streams = new Set<() => void>();
  private readonly maxStreams: number;
  /** Requests in flight per client address, counted by the router. */
  readonly clientSlots: ClientSlots;
  private closed = false;

  /**
   * `onThreadExit` comes from the actor context: the app must be closed before its thread ends,
   * or Node aborts the process while tearing the thread down. With `tls`, the server speaks HTTPS.
   */
  constructor(
    onThreadExit: (close: () => void) => void,
    private readonly tls?: FrontTls,
    limits: FrontLimits = {},
  ) {
    this.maxStreams = limits.maxStreams ?? defaultMaxStreams;
    this.clientSlots = new ClientSlots(limits.requestsPerClient);
    this.current = tls === undefined ? plainApp() : tlsApp(tls);
    onThreadExit(() => this.close());
  }

  /** The app serving new connections. */
  get app(): TemplatedApp {
    return this.current;
  }

  get scheme(): 'http' | 'https' {
    return this.tls === undefined ? 'http' : 'https';
  }

  /** Registers routes now, and on every app made for a new certificate. */
  install(installer: RouteInstaller): void {
    this.installers.push(installer);
    installer(this.current);
  }

  /**
   * Serves `material` to new connections from now on, without closing any (see the top of this file).
   * Throws, and the certificate in place stays, when the material is not a certificate and its key.
   */
  async replaceCertificate(material: TlsMaterial): Promise<void> {
    if (this.tls === undefined) throw new Error('this server speaks plain HTTP: it has no certificate to replace');
    if (this.closed) return;
    const next = tlsApp({ material, scratchDir: this.tls.scratchDir });
    for (const install of this.installers) install(next);
    const previous = { app: this.current, socket: this.listenSocket };
    const joined = this.bound !== undefined && previous.socket !== undefined ? await listenOn(next, this.bound.host, this.bound.port) : undefined;
    if (joined !== undefined) this.listenSocket = joined;
    this.current = next;
    this.retired.push(previous.app);
    if (joined === undefined || previous.socket === undefined) return;
    await afterNextPoll();
    // A stop meanwhile closed every app, the previous one's listen socket with it.
    if (!this.closed) us_listen_socket_close(previous.socket);
  }

  /** Listens on host:port (0 picks a free port) and resolves with the port. */
  async listen(host: string, port: number): Promise<number> {
    this.listenSocket = await listenOn(this.current, host, port);
    const bound = us_socket_local_port(this.listenSocket);
    this.bound = { host, port: bound };
    return bound;
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

  get streamsOpen(): number {
    return this.streams.size;
  }

  /** Throws the 503 refusal of an event stream when this front has its maximum open; call before answering. */
  assertStreamRoom(): void {
    if (this.streams.size < this.maxStreams) return;
    throw new HttpRefusal('ERR_UNAVAILABLE', `this server has its maximum of ${this.maxStreams} event streams open; retry later`, { 'Retry-After': '5' });
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
    this.current.close();
    for (const app of this.retired) app.close();
  }
}
