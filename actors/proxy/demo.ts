// The proxy in `outpost demo`: one route, `netspeed.localhost`, to the demo's own netspeed page, with
// a self-signed demo certificate whose file the demo prints, so the printed https:// URL opens.
// Browsers and curl send every `*.localhost` name to loopback without asking DNS (RFC
// 6761 §6.3), so the name works on any machine. The route needs the netspeed page's port, known once
// every front listens: it is handed to the proxy's fronts then, as a reload hands new routes.
import { connect } from 'node:tls';
import type { z } from 'zod';
import { demoMaterial } from '../cert/index.js';
import type { DemoHooks, Endpoint } from '../../src/config/role.js';
import { makeTemporaryDir } from '../../src/store/temporary-dirs.js';
import { materialPaths } from './client/material-files.js';
import { writeMaterial } from './client/write-material.js';
import { proxyRouteSchema, type proxyConfigSchema, type ProxyConfig } from './config.js';
import { frontRoutes } from './front-routes.js';
import { proxyRoutesTopic } from './proxy-front/kind.js';

export const demoRouteName = 'netspeed.localhost';
/** The role whose page the demo route forwards to. */
const backendRole = 'speedtest';
/** How long the route may take to be served once handed to the fronts: a bound on a hang, on a loaded machine. */
const routeDeadlineMs = 15_000;

export const proxyDemoConfig = {
  server: 'http://127.0.0.1:8080/',
  routes: {},
  host: '127.0.0.1',
  port: 0,
  threads: 1,
  material_dir: '/nonexistent/certhub-agent',
};

export const proxyDemo: DemoHooks<z.input<typeof proxyConfigSchema>, ProxyConfig> = {
  // The material is written by the proxy's demo, not fetched: the folder is removed at exit.
  prepare: async () => ({ ...proxyDemoConfig, fetch: false, material_dir: await makeTemporaryDir('outpost-demo-proxy-') }),
  started: async (config, endpoints, publish) => {
    const front = endpoints.find(({ role }) => role === 'proxy');
    const backend = endpoints.find(({ role }) => role === backendRole);
    if (front === undefined || backend === undefined) return { notes: [`no route: the demo runs no ${backendRole} page to forward to`] };
    // Made after the start, not before: the X.509 libraries would delay every role's start.
    const material = await demoMaterial(demoRouteName);
    await writeMaterial(config.material_dir, {
      domain: demoRouteName,
      certPem: material.certPem,
      chainPem: '',
      keyPem: material.keyPem,
      expiresAt: material.expiresAt,
    });
    publish({
      topic: proxyRoutesTopic,
      message: frontRoutes({ routes: { [demoRouteName]: proxyRouteSchema.parse({ backend: new URL(backend.url).host, token: 'demo' }) } }),
    });
    const url = `https://${demoRouteName}:${new URL(front.url).port}/`;
    const certificate = materialPaths(config.material_dir, demoRouteName).fullchain;
    const served = await routeServed(front, material.certPem);
    return {
      url,
      notes: [
        ...(served ? [] : [`the route was not served within ${routeDeadlineMs / 1000} s: see the log`]),
        `the netspeed page through the proxy; its demo certificate, trusted by nobody: ${certificate}`,
        `curl --cacert ${certificate} ${url}   (or curl -k; a browser asks you to accept the certificate)`,
      ],
    };
  },
};

/** Whether a handshake for the demo name, trusting only `certPem`, succeeds before the deadline. */
async function routeServed(front: Endpoint, certPem: string): Promise<boolean> {
  const { hostname, port } = new URL(front.url);
  const deadline = Date.now() + routeDeadlineMs;
  while (Date.now() < deadline) {
    if (await handshake(hostname.replace(/^\[|\]$/g, ''), Number(port), certPem)) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

function handshake(host: string, port: number, certPem: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, servername: demoRouteName, ca: certPem }, () => {
      socket.end();
      resolve(true);
    });
    socket.on('error', () => {
      socket.destroy();
      resolve(false);
    });
  });
}
