// The proxy front's TLS listener, made again whenever the set of served certificates changes.
//
// uWS can swap a name's certificate only by removing the name and adding it again, and removing it
// deletes the name's router while connections made under the old certificate still point at it: their
// next request reads freed memory (a kept-alive client after a renewal crashed the proxy 2 runs in 34
// of test/integration/kill-actors-proxy.test.ts, `trap stack segment` in uws_linux_x64_115.node, in
// the HTTP data handler). So names are never removed from a live app. A change builds a new app with
// every served name, which joins the port (SO_REUSEPORT) before the old one stops listening (the hand-
// over of src/http/listen.ts). The old app keeps serving the connections it has, and is closed when the
// last of them ends.
import { us_listen_socket_close, us_socket_local_port, type TemplatedApp, type us_listen_socket } from 'uWebSockets.js';
import { afterNextPoll, listenOn } from '../../../src/http/listen.js';
import { withTlsFiles } from '../../../src/http/tls-app.js';
import { privateScratchDir } from '../../../src/store/scratch-dir.js';
import { tlsCipherPolicy } from '../../../src/http/tls-material.js';
import { tlsServerApp } from '../../../src/http/uws-app.js';

/** How long a retired app is kept at least: longer than a TLS handshake on a loaded machine. */
const retiredGraceMs = 10_000;

/** A name's certificate chain and key, as PEM, checked to form a usable pair. */
export interface ServedMaterial {
  fullchain: Buffer;
  key: Buffer;
}

export interface TlsListenerSetup {
  /**
   * The proxy's material_dir: uWS reads a name's key only from a file, written for that moment to
   * `<materialDir>/.scratch` (0700) and removed at once, never to the shared temp folder.
   */
  materialDir: string;
  /** Installs on each new app what every app has (the figures' connection and unserved-name hooks). */
  prepare(app: TemplatedApp): void;
  /**
   * Registers the routes of `domain` on `app`, after its certificate was added. `webSocketClosed` must
   * be called when a WebSocket of the app closes: an upgraded connection leaves uWS's connection count.
   */
  mount(app: TemplatedApp, domain: string, webSocketClosed: () => void): void;
}

/** One app and what keeps it alive. */
interface Generation {
  app: TemplatedApp;
  socket?: us_listen_socket;
  /** Connections open on the app: uWS's filter counts them, less the WebSockets that closed. */
  connections: number;
  /** Stopped listening: closed once its last connection ends, after `retiredGraceMs`. */
  retired: boolean;
  /** The grace after retirement has passed. */
  graceOver: boolean;
  closed: boolean;
}

export class TlsListener {
  private current: Generation;
  private readonly retired = new Set<Generation>();
  private bound: { host: string; port: number } | undefined;
  private closed = false;

  constructor(private readonly setup: TlsListenerSetup) {
    this.current = this.build(new Map());
  }

  /** Listens on host:port (0 picks a free port) and resolves with the port. */
  async listen(host: string, port: number): Promise<number> {
    this.current.socket = await listenOn(this.current.app, host, port);
    const bound = us_socket_local_port(this.current.socket);
    this.bound = { host, port: bound };
    return bound;
  }

  /**
   * Serves exactly `materials` to new handshakes from now on; connections already open keep the app
   * they were made on. Resolves once the previous app has stopped listening.
   */
  async serve(materials: ReadonlyMap<string, ServedMaterial>): Promise<void> {
    if (this.closed) return;
    const next = this.build(materials);
    const previous = this.current;
    if (this.bound !== undefined && previous.socket !== undefined) next.socket = await listenOn(next.app, this.bound.host, this.bound.port);
    this.current = next;
    this.retire(previous);
    if (next.socket === undefined || previous.socket === undefined) return;
    await afterNextPoll();
    // A stop meanwhile (stopListening, close) closed the socket already: it is undefined then.
    if (previous.socket !== undefined && !previous.closed) us_listen_socket_close(previous.socket);
    previous.socket = undefined;
    this.closeIfDone(previous);
  }

  /** Closes every app and every connection: the thread is ending. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const generation of [this.current, ...this.retired]) this.closeApp(generation);
    this.retired.clear();
  }

  /** Stops accepting connections; those open go on. */
  stopListening(): void {
    for (const generation of [this.current, ...this.retired]) {
      if (generation.socket !== undefined && !generation.closed) us_listen_socket_close(generation.socket);
      generation.socket = undefined;
    }
  }

  private build(materials: ReadonlyMap<string, ServedMaterial>): Generation {
    // The app's own context serves no name; each name's has the same policy.
    const app = tlsServerApp({ ssl_ciphers: tlsCipherPolicy });
    const generation: Generation = { app, connections: 0, retired: false, graceOver: false, closed: false };
    app.filter((_res, change) => {
      generation.connections += change;
      this.closeIfDone(generation);
    });
    this.setup.prepare(app);
    const webSocketClosed = () => {
      generation.connections--;
      this.closeIfDone(generation);
    };
    if (materials.size === 0) return generation;
    // Made when first needed: without material there may be no material_dir yet.
    const scratchDir = privateScratchDir(this.setup.materialDir);
    for (const [domain, { fullchain, key }] of materials) {
      withTlsFiles(scratchDir, fullchain, key, (certFile, keyFile) => app.addServerName(domain, { cert_file_name: certFile, key_file_name: keyFile, ssl_ciphers: tlsCipherPolicy }));
      this.setup.mount(app, domain, webSocketClosed);
    }
    return generation;
  }

  private retire(generation: Generation): void {
    generation.retired = true;
    this.retired.add(generation);
    // A connection the old app accepted just before it stopped listening may not be counted yet (its
    // TLS handshake still running): closing the app at a count of 0 at once reset 1 GET on a fresh
    // connection in 5 runs of kill-actors-proxy. The app is closed only after a handshake's time.
    setTimeout(() => {
      generation.graceOver = true;
      this.closeIfDone(generation);
    }, retiredGraceMs).unref();
  }

  private closeIfDone(generation: Generation): void {
    if (!generation.retired || !generation.graceOver || generation.closed || generation.connections > 0) return;
    // Not from inside uWS's own close callback, which the count is updated from.
    setImmediate(() => {
      if (generation.connections > 0 || generation.closed) return;
      // Still listening: serve() closes the socket once the next app has joined the port.
      if (generation.socket !== undefined) return;
      this.closeApp(generation);
      this.retired.delete(generation);
    });
  }

  private closeApp(generation: Generation): void {
    if (generation.closed) return;
    generation.closed = true;
    generation.socket = undefined;
    generation.app.close();
  }
}
