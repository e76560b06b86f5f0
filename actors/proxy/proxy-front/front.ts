// One TLS listener of the proxy role: a uWS SSLApp that presents each routed name's certificate
// (chosen by SNI), forwards that name's requests and WebSocket upgrades to its backend, and checks the
// material files for renewals. The app has no certificate of its own, so a handshake naming no route
// (or no name at all) fails: an unknown name is refused, not answered with another name's certificate.
import { us_listen_socket_close, us_socket_local_port, type HttpResponse, type TemplatedApp, type us_listen_socket } from 'uWebSockets.js';
import type { ActorContext, RunningActor } from '../../../src/actor/actor.js';
import { tlsCipherPolicy } from '../../../src/http/tls-material.js';
import { plainApp, tlsServerApp } from '../../../src/http/uws-app.js';
import { BackendPool } from './backend-pool.js';
import { forwardRequest, type Route } from './forward.js';
import { backendAddress, errorPage, hostName, httpsRedirect, pathAndQuery } from './logic.js';
import type { ProxyFrontApi, ProxyFrontConfig } from './protocol.js';
import { ServedCertificates } from './served-certificates.js';
import { startSummary } from './start-summary.js';
import { webSocketRelay } from './websocket.js';
import { WebSocketLimits } from './websocket-limits.js';
import { formatHostPort } from '../../../src/net/address.js';

export async function startProxyFront(context: ActorContext<ProxyFrontConfig>): Promise<RunningActor<ProxyFrontApi>> {
  const { config, log } = context;
  // The app's own context serves no name; each route's (served-certificates.ts) has the same policy.
  const app = tlsServerApp({ ssl_ciphers: tlsCipherPolicy });
  const apps: TemplatedApp[] = [app];
  context.onThreadExit(() => apps.forEach((one) => one.close()));
  const routes = new Map<string, Route>(
    config.routes.map(({ domain, backend, hsts }) => [
      domain,
      {
        domain,
        backend,
        ...(hsts === undefined ? {} : { hsts }),
        uploadFloor: config.limits.uploadFloor,
        // Response bodies may pause for as long as the client reads slowly, so only the head is timed.
        pool: new BackendPool({ ...backendAddress(backend), connections: config.backendConnections, headersTimeoutMs: config.backendTimeoutMs, maxQueued: config.limits.backendQueue }),
      },
    ]),
  );
  const webSocketLimits = new WebSocketLimits(config.limits.webSocket);
  context.onThreadExit(() => webSocketLimits.close());

  let inFlight = 0;
  let idle: (() => void) | undefined;
  const begin = () => {
    inFlight++;
    let settled = false;
    return () => {
      if (settled) return;
      settled = true;
      if (--inFlight === 0) idle?.();
    };
  };

  const mount = (domain: string) => {
    const route = routes.get(domain)!;
    app
      .domain(domain)
      .any('/*', (res, req) => {
        const host = req.getHeader('host');
        if (host !== '' && hostName(host) !== domain) return misdirected(res, domain);
        forwardRequest(res, req, route, log, begin());
      })
      .ws('/*', webSocketRelay({ domain, backend: route.backend, log, limits: webSocketLimits, maxBufferedBytes: config.limits.webSocket.maxBufferedBytes, misdirected }));
  };
  const certificates = new ServedCertificates(app, config.materialDir, [...routes.keys()], mount, log);
  context.onThreadExit(() => certificates.close());
  await certificates.reloadAll();
  const checks = setInterval(() => void certificates.reloadAll(), config.materialCheckMs);

  const listening: us_listen_socket[] = [];
  const port = await listen(app, config.host, config.port, listening);
  const urls = [`https://${formatHostPort(shownHost(config.host), port)}/`];
  if (config.redirectPort !== undefined) {
    const redirect = redirectApp(new Set(routes.keys()), port);
    apps.push(redirect);
    const redirectPort = await listen(redirect, config.host, config.redirectPort, listening);
    urls.push(`http://${formatHostPort(shownHost(config.host), redirectPort)}/`);
  }
  if (config.describesStart) {
    log.info(startSummary(config.routes.map(({ domain, backend }) => ({ domain, backend, served: certificates.isServed(domain) })), urls, config.materialDir));
  }

  return {
    api: {
      reload: (domain) => certificates.reload(domain),
    },
    ready: { urls },
    stop: async (graceMs) => {
      clearInterval(checks);
      for (const socket of listening.splice(0)) us_listen_socket_close(socket);
      if (inFlight > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, graceMs);
          idle = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
      apps.forEach((one) => one.close());
      for (const { pool } of routes.values()) pool.close();
      webSocketLimits.close();
    },
  };
}

/** RFC 9110 section 15.5.20: the connection was made for another name than the one asked for. */
function misdirected(res: HttpResponse, domain: string): void {
  res
    .writeStatus('421 Misdirected Request')
    .writeHeader('content-type', 'text/html; charset=utf-8')
    .end(errorPage(421, 'Misdirected Request', `This connection serves ${domain} only; open a new connection for another name.`));
}

/** The plain listener: a routed name's requests are sent to HTTPS; any other name gets 404. */
function redirectApp(domains: ReadonlySet<string>, httpsPort: number): TemplatedApp {
  return plainApp().any('/*', (res, req) => {
    const location = httpsRedirect(req.getHeader('host'), pathAndQuery(req.getUrl(), req.getQuery() ?? ''), httpsPort, domains);
    if (location === undefined) {
      res.writeStatus('404 Not Found').writeHeader('content-type', 'text/html; charset=utf-8').end(errorPage(404, 'Not Found', 'No site of this name is served here.'));
      return;
    }
    res.writeStatus('308 Permanent Redirect').writeHeader('location', location).end();
  });
}

function listen(app: TemplatedApp, host: string, port: number, listening: us_listen_socket[]): Promise<number> {
  return new Promise((resolve, reject) => {
    app.listen(host, port, (socket) => {
      if (socket === false) return reject(new Error(`cannot listen on ${formatHostPort(host, port)}: address in use or not available`));
      listening.push(socket);
      resolve(us_socket_local_port(socket));
    });
  });
}

function shownHost(host: string): string {
  return host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
}
