// A `certhub run` for the cert benchmarks: a data directory with its config.json, the process on a
// free loopback port, and the admin API with the key the config holds. Its log is kept, not printed
// (10,000 adds would flood the table), and shown when it fails.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { projectRoot } from './harness.js';
import { startPebble, type PebbleServer } from './third-party/pebble.js';
import { startPowerDns, type PowerDnsServer } from './third-party/powerdns.js';

const certhubBin = new URL('dist/bin/certhub.js', projectRoot).pathname;

export interface DomainView {
  name: string;
  status: 'pending' | 'issuing' | 'issued' | 'error';
  token: string;
  error: string | null;
}

export interface CerthubServer {
  child: ChildProcess;
  pid: number;
  url: string;
  /** Milliseconds from spawn to the URL printed. */
  listeningMs: number;
  log(): string;
  /** fetch with the admin key; a JSON body when given. */
  admin(path: string, init?: { method?: string; body?: unknown }): Promise<Response>;
  stop(): Promise<void>;
}

/** Writes config.json (base domain, a new admin key, `extra`) into `dataDir`, made 0700. */
export async function writeCerthubConfig(dataDir: string, baseDomain: string, extra: object = {}): Promise<void> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const adminKey = `cha_${randomBytes(24).toString('base64url')}`;
  await writeFile(join(dataDir, 'config.json'), JSON.stringify({ base_domain: baseDomain, admin_key: adminKey, ...extra }), { mode: 0o600 });
}

/** certhub on the benchmarks' own stack: PowerDNS's zone and API, Pebble validating through it. */
export interface CertStack {
  powerdns: PowerDnsServer;
  pebble: PebbleServer;
  certhub: CerthubServer;
  /** Stops all three; what was started is stopped even when a later start failed. */
  stop(): Promise<void>;
}

/** Starts PowerDNS, Pebble and certhub (its data in `dir`/certhub); on a failed start stops what ran. */
/** `nodeArguments`: given to the certhub process's Node (the soak's --inspect). */
export async function startCertStack(dir: string, nodeArguments: string[] = []): Promise<CertStack> {
  let powerdns: PowerDnsServer | undefined;
  let pebble: PebbleServer | undefined;
  let certhub: CerthubServer | undefined;
  const stop = async () => {
    await certhub?.stop();
    await pebble?.stop();
    await powerdns?.stop();
  };
  try {
    powerdns = await startPowerDns();
    pebble = await startPebble({ dnsServer: powerdns.nameserver });
    const dataDir = join(dir, 'certhub');
    await writeCerthubConfig(dataDir, powerdns.zone, {
      dns: { provider: 'powerdns', server_url: powerdns.apiUrl, api_token: powerdns.apiKey, zone: powerdns.zone },
      acme: { directory_url: pebble.directoryUrl, ca_bundle: pebble.caFile, accept_terms: true, certificate_budget: { certificates: 10_000 } },
      propagation: { nameservers: [powerdns.nameserver], timeout_seconds: 60 },
    });
    certhub = await startCerthub(dataDir, [], nodeArguments);
    return { powerdns, pebble, certhub, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

export function startCerthub(dataDir: string, args: string[] = [], nodeArguments: string[] = []): Promise<CerthubServer> {
  const startedAt = performance.now();
  const child = spawn(process.execPath, [...nodeArguments, certhubBin, 'run', '-d', dataDir, '-H', '127.0.0.1', '-p', '0', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let log = '';
  child.stderr.setEncoding('utf8').on('data', (text: string) => (log += text));
  return new Promise((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      stdout += text;
      const url = /^(http:\/\/127\.0\.0\.1:\d+\/)$/m.exec(stdout)?.[1];
      if (url === undefined || !/^admin key: /m.test(stdout)) return;
      // certhub names the file that holds the admin key, not the key: it is read from there.
      const adminKey = (JSON.parse(readFileSync(join(dataDir, 'config.json'), 'utf8')) as { admin_key: string }).admin_key;
      resolve({
        child,
        pid: child.pid!,
        url,
        listeningMs: performance.now() - startedAt,
        log: () => log,
        admin: (path, init = {}) =>
          fetch(`${url}${path}`, {
            method: init.method ?? 'GET',
            headers: { authorization: `Bearer ${adminKey}`, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
            ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
          }),
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null || child.signalCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    });
    child.once('exit', (code) => reject(new Error(`certhub exited with ${code} before listening:\n${log}`)));
  });
}

/** Adds `label` with `target` through the admin API; the domain as stored. */
export async function addDomain(server: CerthubServer, label: string, target: string): Promise<DomainView> {
  const response = await server.admin('api/admin/domains', { method: 'POST', body: { name: label, target } });
  if (!response.ok) throw new Error(`adding ${label}: HTTP ${response.status} ${await response.text()}`);
  return (await response.json()) as DomainView;
}

export async function listDomains(server: CerthubServer): Promise<DomainView[]> {
  const response = await server.admin('api/admin/domains');
  if (!response.ok) throw new Error(`listing domains: HTTP ${response.status} ${await response.text()}`);
  return ((await response.json()) as { domains: DomainView[] }).domains;
}
