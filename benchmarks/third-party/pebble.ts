// Pebble, Let's Encrypt's test CA (Debian `pebble`), on free loopback ports for tests and benchmarks.
// It resolves DNS-01 challenges through the nameserver it is given (the test's PowerDNS). Debian's
// package ships no TLS certificate for Pebble's own HTTPS, so each start makes a throwaway CA and a
// certificate for 127.0.0.1 signed by it; `caFile` is that CA (the `acme.ca_bundle` a client needs).
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { reservePort } from '../../src/http/port.js';
import { onFreshPorts, startDaemon, waitForDaemon, type Daemon } from './daemon.js';
import { p256KeyArgs, writeSelfSigned } from './openssl.js';

const run = promisify(execFile);

export interface PebbleServer {
  /** `https://127.0.0.1:<port>/dir`. */
  directoryUrl: string;
  /** `https://127.0.0.1:<port>`: roots, intermediates, cert status. */
  managementUrl: string;
  /** PEM file of the CA that signs Pebble's HTTPS certificate. */
  caFile: string;
  /** Pebble's HTTPS certificate and key (for 127.0.0.1), which a layer in front of it may serve with too. */
  tlsCertFile: string;
  tlsKeyFile: string;
  /** The root that issues this run's certificates (`/roots/0`; Pebble makes a new one at every start). */
  root(): Promise<string>;
  /** An HTTPS GET trusting `caFile`: status and body. */
  get(url: string): Promise<{ status: number; body: string }>;
  output(): string;
  /** Stops the CA, keeping its ports, configuration and HTTPS certificate for `start`. */
  halt(): Promise<void>;
  /** Starts the CA again after `halt`, on the same ports; it has forgotten every account and order. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

export interface PebbleOptions {
  /** `host:port` of the DNS server Pebble validates through. */
  dnsServer: string;
  /** More environment for Pebble (e.g. `PEBBLE_WFE_NONCEREJECT`, `PEBBLE_ALTERNATE_ROOTS`). */
  env?: NodeJS.ProcessEnv;
  /** More settings of Pebble's config file (e.g. `externalAccountBindingRequired` and `externalAccountMACKeys`). */
  settings?: Record<string, unknown>;
}

export function startPebble(options: PebbleOptions): Promise<PebbleServer> {
  return onFreshPorts(() => startPebbleOnce(options));
}

async function startPebbleOnce(options: PebbleOptions): Promise<PebbleServer> {
  const dir = await mkdtemp(join(tmpdir(), 'outpost-pebble-'));
  let daemon: Daemon | undefined;
  try {
    const caFile = await makeTlsCertificate(dir);
    const ca = await readFile(caFile, 'utf8');
    const [acmePort, managementPort, httpPort, tlsPort] = [
      await reservePort('127.0.0.1'),
      await reservePort('127.0.0.1'),
      await reservePort('127.0.0.1'),
      await reservePort('127.0.0.1'),
    ];
    const configFile = join(dir, 'pebble-config.json');
    await writeFile(
      configFile,
      JSON.stringify({
        pebble: {
          listenAddress: `127.0.0.1:${acmePort}`,
          managementListenAddress: `127.0.0.1:${managementPort}`,
          certificate: join(dir, 'cert.pem'),
          privateKey: join(dir, 'key.pem'),
          // Ports Pebble would connect to for http-01 and tls-alpn-01; only dns-01 is used here.
          httpPort,
          tlsPort,
          ocspResponderURL: '',
          externalAccountBindingRequired: false,
          ...options.settings,
        },
      }),
    );
    // PEBBLE_VA_ALWAYS_VALID would skip validation: it is removed so that every challenge is really checked.
    const env: NodeJS.ProcessEnv = { ...process.env, PEBBLE_VA_NOSLEEP: '1', ...options.env };
    delete env.PEBBLE_VA_ALWAYS_VALID;
    const directoryUrl = `https://127.0.0.1:${acmePort}/dir`;
    const managementUrl = `https://127.0.0.1:${managementPort}`;
    const get = (url: string) => httpsGet(url, ca);
    // A readiness probe that gets no answer is given up and asked again until waitForDaemon's deadline.
    const probe = async (url: string) => (await httpsGet(url, ca, probeTimeoutMs)).status === 200;
    const launch = async () => {
      daemon = startDaemon('pebble', ['-config', configFile, '-dnsserver', options.dnsServer], env);
      await waitForDaemon(daemon, 'pebble', async () => (await probe(directoryUrl)) && (await probe(`${managementUrl}/roots/0`)));
    };
    await launch();
    return {
      directoryUrl,
      managementUrl,
      caFile,
      tlsCertFile: join(dir, 'cert.pem'),
      tlsKeyFile: join(dir, 'key.pem'),
      get,
      async root() {
        const { status, body } = await get(`${managementUrl}/roots/0`);
        if (status !== 200) throw new Error(`pebble answered HTTP ${status} for /roots/0`);
        return body;
      },
      output: () => daemon?.output() ?? '',
      halt: async () => daemon?.stop(),
      start: launch,
      async stop() {
        await daemon?.stop();
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await daemon?.stop();
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

/** Writes ca.pem, cert.pem and key.pem (for 127.0.0.1 and localhost) into `dir`; returns ca.pem's path. */
async function makeTlsCertificate(dir: string): Promise<string> {
  const caFile = join(dir, 'ca.pem');
  const caKey = join(dir, 'ca-key.pem');
  const ec = p256KeyArgs;
  await writeSelfSigned({ keyFile: caKey, certFile: caFile, subject: '/CN=outpost test CA for Pebble HTTPS' });
  await run('openssl', [
    'req',
    ...ec,
    '-keyout',
    join(dir, 'key.pem'),
    '-out',
    join(dir, 'cert.pem'),
    '-CA',
    caFile,
    '-CAkey',
    caKey,
    '-days',
    '2',
    '-subj',
    '/CN=localhost',
    '-addext',
    'subjectAltName=IP:127.0.0.1,DNS:localhost',
    '-addext',
    'basicConstraints=critical,CA:FALSE',
  ]);
  await rm(caKey);
  return caFile;
}

/** How long a readiness probe waits for an answer before it is asked again. */
const probeTimeoutMs = 5000;

/**
 * A GET trusting `ca`. Only a readiness probe gives up (after `timeoutMs` without an answer): a running
 * Pebble is waited for as long as the caller's own deadline allows, since a loaded machine can keep it
 * from answering for seconds (a fixed 5 s here failed tests at load average 24).
 */
function httpsGet(url: string, ca: string, timeoutMs?: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { ca, timeout: timeoutMs }, (response) => {
      let body = '';
      response.setEncoding('utf8').on('data', (text: string) => (body += text));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      response.on('error', reject);
    });
    // Node's global agent times its sockets out after 5 s too: only a probe listens to that.
    if (timeoutMs !== undefined) outgoing.on('timeout', () => outgoing.destroy(new Error(`GET ${url} timed out`)));
    outgoing.on('error', reject);
    outgoing.end();
  });
}
