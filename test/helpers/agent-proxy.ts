// certhub-agent proxy in tests: material written as certhub-agent fetch writes it (real certificates
// from certificates.ts), the proxy started as a real process on free ports, and clients that name the
// server they want in SNI and Host while connecting to loopback (what `curl --resolve` does).
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { request, type Agent as HttpsAgent } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type { LookupFunction } from 'node:net';
import { connect, type TLSSocket } from 'node:tls';
import type { ExecutionContext } from 'ava';
import { Agent } from 'undici';
import WebSocket from 'ws';
import { materialPaths } from '../../actors/proxy/client/material-files.js';
import { writeFileAtomic } from '../../src/store/atomic.js';
import { testCertificate } from './certificates.js';
import { projectPath, startProcess, type RunningProcess } from './process.js';
import { startProxyBackend } from './proxy-backend.js';

export async function temporaryDir(t: ExecutionContext, prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** Writes a fresh certificate for `domain` into `<dir>/<domain>/` the way fetch does: each file replaced atomically. */
export async function writeTestMaterial(dir: string, domain: string, serialHex: string): Promise<void> {
  const now = Date.now();
  const { certPem, keyPem } = await testCertificate({
    name: domain,
    serialHex,
    notBefore: new Date(now - 3_600_000),
    notAfter: new Date(now + 30 * 86_400_000),
  });
  const paths = materialPaths(dir, domain);
  await mkdir(paths.folder, { recursive: true, mode: 0o700 });
  await writeFileAtomic(paths.cert, certPem);
  await writeFileAtomic(paths.chain, '');
  await writeFileAtomic(paths.key, keyPem, { mode: 0o600 });
  await writeFileAtomic(paths.fullchain, certPem);
}

export interface AgentProxy {
  process: RunningProcess;
  /** The config file it runs (SIGHUP reads it again). */
  configPath: string;
  port: number;
  redirectPort?: number;
}

/** Starts `certhub-agent proxy -c <file>` with `config` written to a file (and `env` added to its environment); resolves once it listens. */
export async function startAgentProxy(t: ExecutionContext, config: object, env: NodeJS.ProcessEnv = {}): Promise<AgentProxy> {
  const dir = await temporaryDir(t, 'agent-proxy-config-');
  const file = join(dir, 'proxy.json');
  await writeFile(file, JSON.stringify(config), { mode: 0o600 });
  const proxy = startProcess(t, process.execPath, [projectPath('dist/bin/certhub-agent.js'), 'proxy', '-c', file], env);
  const [, port] = await proxy.waitFor(/^https:\/\/127\.0\.0\.1:(\d+)\/$/m, 30_000);
  const redirect = 'redirect_port' in config ? (await proxy.waitFor(/^http:\/\/127\.0\.0\.1:(\d+)\/$/m))[1] : undefined;
  return { process: proxy, configPath: file, port: Number(port), ...(redirect === undefined ? {} : { redirectPort: Number(redirect) }) };
}

/**
 * A one-thread `certhub-agent proxy` serving `name` from a demo certhub at `server` (its material
 * untrusted), reporting as `hostName` every minute; resolves once it has fetched the material.
 */
export async function reportingProxy(t: ExecutionContext, server: string, route: { name: string; token: string }, hostName: string): Promise<AgentProxy> {
  const proxy = await startAgentProxy(t, {
    server,
    routes: { [route.name]: { backend: '127.0.0.1:9', token: route.token } },
    host: '127.0.0.1',
    port: 0,
    threads: 1,
    material_dir: await temporaryDir(t, 'agent-proxy-material-'),
    allow_untrusted: true,
    host_name: hostName,
    fetch_interval_seconds: 60,
  });
  await proxy.process.waitFor(new RegExp(`fetch: new material for ${route.name.replaceAll('.', '\\.')}`), 30_000);
  return proxy;
}

export interface PresentedCertificate {
  subject: string;
  serialNumber: string;
}

/** Completes a TLS handshake naming `servername` and reports the certificate the server presented. */
export function presentedCertificate(port: number, servername: string): Promise<PresentedCertificate> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, servername, rejectUnauthorized: false }, () => {
      const certificate = socket.getPeerCertificate();
      socket.end();
      resolve({ subject: `CN=${String(certificate.subject.CN)}`, serialNumber: certificate.serialNumber });
    });
    socket.once('error', reject);
    // A handshake that never ends is an answer too; bounds it so a caller polling sees it as a failure.
    socket.setTimeout(20_000, () => socket.destroy(new Error('the handshake did not end within 20 s')));
  });
}

/** A GET of /whoami on `agent`'s kept-alive connection: its status, local port and the certificate its handshake got. */
export function keptAliveGet(
  agent: HttpsAgent,
  port: number,
  name: string,
): Promise<{ status: number | undefined; localPort: number | undefined; serialNumber: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      { host: '127.0.0.1', port, servername: name, rejectUnauthorized: false, agent, path: '/whoami', headers: { host: name } },
      (response) => {
        const socket = response.socket as TLSSocket;
        const seen = { status: response.statusCode, localPort: socket.localPort, serialNumber: socket.getPeerCertificate().serialNumber };
        response.resume().once('end', () => resolve(seen));
      },
    );
    outgoing.once('error', reject);
    outgoing.setTimeout(20_000, () => outgoing.destroy(new Error('no answer within 20 s')));
    outgoing.end();
  });
}

/**
 * A proxy with one route, alpha.test, to a fresh backend, on two front threads, whose material the
 * test writes itself (`writeTestMaterial`): the first with serial `serialHex`, checked for renewals
 * every `materialCheckMs`.
 */
export async function startOneRouteProxy(t: ExecutionContext, serialHex: string, materialCheckMs: number): Promise<{ proxy: AgentProxy; materialDir: string }> {
  const materialDir = await temporaryDir(t, 'agent-proxy-material-');
  await writeTestMaterial(materialDir, 'alpha.test', serialHex);
  const backend = await startProxyBackend(t, 'alpha');
  const proxy = await startAgentProxy(t, {
    server: 'https://certhub.example.test/',
    // Nothing is fetched from that server.
    fetch: false,
    routes: { 'alpha.test': { backend: backend.address, token: 'chd_test_token' } },
    host: '127.0.0.1',
    port: 0,
    material_dir: materialDir,
    material_check_ms: materialCheckMs,
    threads: 2,
  });
  return { proxy, materialDir };
}

export interface CurlResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs curl for `https://<name>:<port><path>` with the name resolved to loopback; -k since the test CA is thrown away. */
export function curlResolve(name: string, port: number, path: string, extra: readonly string[] = []): Promise<CurlResult> {
  return new Promise((resolve) => {
    execFile(
      'curl',
      ['-sS', '-k', '-v', '--max-time', '20', '--resolve', `${name}:${port}:127.0.0.1`, ...extra, `https://${name}:${port}${path}`],
      { maxBuffer: 16 << 20 },
      (error, stdout, stderr) => {
        resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : null, stdout, stderr });
      },
    );
  });
}

/** An HTTPS request to loopback naming `name` in SNI and Host; resolves with the response head, body unread. */
export function proxiedRequest(
  port: number,
  name: string,
  options: { method?: string; path: string; headers?: Record<string, string>; body?: Readable },
): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const outgoing = request({
      host: '127.0.0.1',
      port,
      servername: name,
      rejectUnauthorized: false,
      method: options.method ?? 'GET',
      path: options.path,
      headers: { host: `${name}:${port}`, ...options.headers },
    });
    outgoing.once('response', resolve);
    outgoing.once('error', reject);
    if (options.body === undefined) outgoing.end();
    else options.body.pipe(outgoing);
  });
}

/** A WebSocket (ws's client) to `wss://<name>:<port><path>` with the name resolved to loopback; resolves once open. */
export function proxiedWebSocket(port: number, name: string, path: string): Promise<WebSocket> {
  const socket = new WebSocket(`wss://${name}:${port}${path}`, { lookup: loopbackLookup, rejectUnauthorized: false, perMessageDeflate: false });
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Reads a response body as text. */
export async function bodyText(response: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of response.setEncoding('utf8')) text += chunk as string;
  return text;
}

/** A DNS lookup for names that exist only in a test: every name is loopback. */
export const loopbackLookup = ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) =>
  options.all === true ? callback(null, [{ address: '127.0.0.1', family: 4 }]) : callback(null, '127.0.0.1', 4)) as LookupFunction;

/** An undici dispatcher for names that exist only in a test: every lookup answers loopback, any certificate is taken. */
export function loopbackDispatcher(t: ExecutionContext): Agent {
  const dispatcher = new Agent({ connect: { rejectUnauthorized: false, lookup: loopbackLookup } });
  t.teardown(() => dispatcher.close());
  return dispatcher;
}

/**
 * A proxy with one route, app.test, to `backend` (`host:port`, or the route's backend keys), over one
 * backend connection and one thread: every request of every client goes down the same connection, as
 * a busy route's do.
 */
export async function startProxyTo(
  t: ExecutionContext,
  backend: string | Record<string, unknown>,
  config: object = {},
): Promise<AgentProxy & { materialDir: string }> {
  const materialDir = await temporaryDir(t, 'agent-proxy-material-');
  await writeTestMaterial(materialDir, 'app.test', '0c');
  const proxy = await startAgentProxy(t, {
    server: 'https://certhub.example.test/',
    fetch: false,
    routes: { 'app.test': { ...(typeof backend === 'string' ? { backend } : backend), token: 'chd_test_token' } },
    host: '127.0.0.1',
    port: 0,
    material_dir: materialDir,
    threads: 1,
    backend_connections: 1,
    ...config,
  });
  return { ...proxy, materialDir };
}
