// The proxy front's TLS listener: one acceptor that holds the port for the thread's whole life, and
// behind it an app per set of served certificates, made again whenever that set changes.
//
// uWS can swap a name's certificate only by removing the name and adding it again, and removing it
// deletes the name's router while connections made under the old certificate still point at it: their
// next request reads freed memory (a kept-alive client after a renewal crashes the proxy, `trap stack
// segment` in the HTTP data handler). So names are never removed from a live app: a change builds a
// new app with every served name.
//
// The new app does not listen itself. Closing a listen socket resets the connections waiting in its
// accept queue (SO_REUSEPORT gives each socket of the port its own queue, unless the host set
// net.ipv4.tcp_migrate_req), and under load the queue is never empty: handing the port from one
// listen socket to the next drops handshakes. The acceptor accepts every connection and hands it
// to its child app (uWS's addChildApp, App.h), which does the TLS handshake by SNI; a swap makes the
// new app the child and takes the old one out, with no socket closed. The old app keeps serving the
// connections it has, and is closed when the last of them ends.
import { us_listen_socket_close, us_socket_local_port, type TemplatedApp, type us_listen_socket } from 'uWebSockets.js';
import { listenOn } from '../../../src/http/listen.js';
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
  /** The names the certificate covers beside the route's own (its other DNS names, wildcards included): served too. */
  names: readonly string[];
}

/** A server name an app serves, and the route it belongs to. */
export interface MountedName {
  /** The route (the proxy config's name). */
  domain: string;
  /** The TLS server name registered: the route's own name, or another name of its certificate. */
  serverName: string;
  /** Every name of the route's certificate: a request's Host must be one of them (server-names.ts). */
  names: readonly string[];
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
  mount(app: TemplatedApp, mounted: MountedName, webSocketClosed: () => void): void;
}

/** uWebSockets.js's child apps (App.h addChildApp), which the typings of uws-pack 20.0.8 leave out. */
interface ParentApp {
  getDescriptor(): unknown;
  addChildAppDescriptor(descriptor: unknown): void;
  removeChildAppDescriptor(descriptor: unknown): void;
}

const asParent = (app: TemplatedApp) => app as unknown as ParentApp;

/** One app and what keeps it alive. */
interface Generation {
  app: TemplatedApp;
  /** Connections open on the app: uWS's filter counts them, less the WebSockets that closed. */
  connections: number;
  /** Stopped listening: closed once its last connection ends, after `retiredGraceMs`. */
  retired: boolean;
  /** The grace after retirement has passed. */
  graceOver: boolean;
  closed: boolean;
}

export class TlsListener {
  /** Accepts every connection on the port and hands it to the current generation's app; serves nothing itself. */
  private readonly acceptor: TemplatedApp;
  private socket: us_listen_socket | undefined;
  private current: Generation;
  private readonly retired = new Set<Generation>();
  private closed = false;

  constructor(private readonly setup: TlsListenerSetup) {
    this.acceptor = tlsServerApp({ ssl_ciphers: tlsCipherPolicy });
    this.current = this.build(new Map());
    asParent(this.acceptor).addChildAppDescriptor(asParent(this.current.app).getDescriptor());
  }

  /** Listens on host:port (0 picks a free port) and resolves with the port. */
  async listen(host: string, port: number): Promise<number> {
    this.socket = await listenOn(this.acceptor, host, port);
    return us_socket_local_port(this.socket);
  }

  /** Serves exactly `materials` to new handshakes from now on; connections already open keep the app they were made on. */
  serve(materials: ReadonlyMap<string, ServedMaterial>): Promise<void> {
    if (this.closed) return Promise.resolve();
    const next = this.build(materials);
    const previous = this.current;
    const acceptor = asParent(this.acceptor);
    // Added before the old one is taken out: there is always a child to hand a connection to.
    acceptor.addChildAppDescriptor(asParent(next.app).getDescriptor());
    acceptor.removeChildAppDescriptor(asParent(previous.app).getDescriptor());
    this.current = next;
    this.retire(previous);
    return Promise.resolve();
  }

  /** Closes every app and every connection: the thread is ending. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.stopListening();
    for (const generation of [this.current, ...this.retired]) this.closeApp(generation);
    this.retired.clear();
    this.acceptor.close();
  }

  /** Stops accepting connections; those open go on. */
  stopListening(): void {
    if (this.socket !== undefined) us_listen_socket_close(this.socket);
    this.socket = undefined;
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
    // The routes' own names first, then the other names of their certificates: a name two
    // certificates cover goes to the route named after it, or else to the first route.
    const mounted = new Set(materials.keys());
    const served: { serverName: string; domain: string; material: ServedMaterial }[] = [];
    for (const [domain, material] of materials) served.push({ serverName: domain, domain, material });
    for (const [domain, material] of materials)
      for (const name of material.names) {
        if (mounted.has(name)) continue;
        mounted.add(name);
        served.push({ serverName: name, domain, material });
      }
    for (const { serverName, domain, material } of served) {
      withTlsFiles(scratchDir, material.fullchain, material.key, (certFile, keyFile) =>
        app.addServerName(serverName, { cert_file_name: certFile, key_file_name: keyFile, ssl_ciphers: tlsCipherPolicy }),
      );
      this.setup.mount(app, { domain, serverName, names: [domain, ...material.names] }, webSocketClosed);
    }
    return generation;
  }

  private retire(generation: Generation): void {
    generation.retired = true;
    this.retired.add(generation);
    // A connection handed to the old app just before the swap may not be counted yet (its adoption
    // runs on the loop's next turn, its TLS handshake after): the app is closed only after a
    // handshake's time.
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
      this.closeApp(generation);
      this.retired.delete(generation);
    });
  }

  private closeApp(generation: Generation): void {
    if (generation.closed) return;
    generation.closed = true;
    generation.app.close();
  }
}
