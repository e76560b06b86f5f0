// A private PowerDNS Authoritative server for tests and benchmarks: sqlite3 backend in a temporary
// folder, DNS and HTTP API on free loopback ports, one Native zone made through the API. Never the
// system's PowerDNS: its own config-dir and socket-dir, so /etc/powerdns is not read. No ava import,
// so benchmarks can start it; its ava macro is in test/helpers/cert-stack.ts.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { reservePort } from '../../src/http/port.js';
import { freeDnsPort, onFreshPorts, startDaemon, waitForDaemon, type Daemon } from './daemon.js';

const run = promisify(execFile);

/** The schema pdns-backend-sqlite3 ships for a new database. */
const sqliteSchema = '/usr/share/pdns-backend-sqlite3/schema/schema.sqlite3.sql';

export type ZoneKind = 'Native' | 'Master' | 'Producer';

export interface RRset {
  name: string;
  type: string;
  contents: string[];
}

export interface PowerDnsServer {
  /** Its DNS port on 127.0.0.1, UDP and TCP. */
  dnsPort: number;
  /** `127.0.0.1:<dnsPort>`: for `propagation.nameservers` and Pebble's `-dnsserver`. */
  nameserver: string;
  /** `http://127.0.0.1:<port>`: the provider's `server_url`. */
  apiUrl: string;
  apiKey: string;
  /** The zone made at start, without the trailing dot (`example.test`). */
  zone: string;
  /** Makes another zone through the API, with SOA, NS and SOA-EDIT-API (`soaEditApi` '' for a zone without). */
  createZone(zone: string, kind?: ZoneKind, soaEditApi?: string): Promise<void>;
  /** The answers `dig +short` prints for `name` and `type`, asked of this server without recursion. */
  dig(name: string, type: string): Promise<string[]>;
  /** Every RRset of the start zone as the API lists it (names without the trailing dot). */
  rrsets(): Promise<RRset[]>;
  output(): string;
  stop(): Promise<void>;
}

export interface PowerDnsOptions {
  /** The zone made at start; default `example.test`. */
  zone?: string;
  kind?: ZoneKind;
  /** Runs as a primary (`--primary=yes`), which sends the NOTIFYs a zone's `/notify` asks for; default no. */
  primary?: boolean;
}

export function startPowerDns(options: PowerDnsOptions = {}): Promise<PowerDnsServer> {
  return onFreshPorts(() => startPowerDnsOnce(options));
}

async function startPowerDnsOnce(options: PowerDnsOptions): Promise<PowerDnsServer> {
  const dir = await mkdtemp(join(tmpdir(), 'outpost-pdns-'));
  let daemon: Daemon | undefined;
  try {
    const database = join(dir, 'pdns.sqlite3');
    await run('sqlite3', ['-init', sqliteSchema, database, '.quit']);
    // An empty pdns.conf in its own config-dir: every setting is on the command line.
    await writeFile(join(dir, 'pdns.conf'), '');
    const dnsPort = await freeDnsPort();
    const apiPort = await reservePort('127.0.0.1');
    const apiKey = randomBytes(16).toString('hex');
    daemon = startDaemon('pdns_server', [
      `--config-dir=${dir}`,
      `--socket-dir=${dir}`,
      '--launch=gsqlite3',
      `--gsqlite3-database=${database}`,
      '--local-address=127.0.0.1',
      `--local-port=${dnsPort}`,
      '--webserver-address=127.0.0.1',
      `--webserver-port=${apiPort}`,
      '--api=yes',
      `--api-key=${apiKey}`,
      '--daemon=no',
      '--guardian=no',
      '--write-pid=no',
      '--disable-syslog=yes',
      // Its security-status poll would ask the system resolver about powerdns.com: no traffic leaves loopback.
      '--security-poll-suffix=',
      '--receiver-threads=1',
      ...(options.primary === true ? ['--primary=yes'] : []),
      '--distributor-threads=1',
    ]);
    const apiUrl = `http://127.0.0.1:${apiPort}`;
    const headers = { 'X-API-Key': apiKey };
    await waitForDaemon(daemon, 'pdns_server', async () => (await fetch(`${apiUrl}/api/v1/servers/localhost`, { headers })).ok);
    const running = daemon;
    const server: PowerDnsServer = {
      dnsPort,
      nameserver: `127.0.0.1:${dnsPort}`,
      apiUrl,
      apiKey,
      zone: options.zone ?? 'example.test',
      createZone: (zone, kind = 'Native', soaEditApi = 'DEFAULT') => createZone(apiUrl, apiKey, zone, kind, soaEditApi),
      dig: (name, type) => dig(dnsPort, name, type),
      rrsets: () => listRRsets(apiUrl, apiKey, options.zone ?? 'example.test'),
      output: () => running.output(),
      async stop() {
        await running.stop();
        await rm(dir, { recursive: true, force: true });
      },
    };
    await server.createZone(server.zone, options.kind);
    return server;
  } catch (error) {
    await daemon?.stop();
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

async function createZone(apiUrl: string, apiKey: string, zone: string, kind: ZoneKind, soaEditApi: string): Promise<void> {
  const apex = `${zone}.`;
  const nameserver = `ns1.${apex}`;
  const body = {
    name: apex,
    kind,
    // Without SOA-EDIT-API the serial never moves on API changes and secondaries would never see them.
    soa_edit_api: soaEditApi,
    rrsets: [
      { name: apex, type: 'SOA', ttl: 60, records: [{ content: `${nameserver} hostmaster.${apex} 1 10800 3600 604800 60`, disabled: false }] },
      { name: apex, type: 'NS', ttl: 60, records: [{ content: nameserver, disabled: false }] },
      { name: nameserver, type: 'A', ttl: 60, records: [{ content: '127.0.0.1', disabled: false }] },
    ],
  };
  const response = await fetch(`${apiUrl}/api/v1/servers/localhost/zones`, {
    method: 'POST',
    headers: { 'X-API-Key': apiKey, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (response.status !== 201) throw new Error(`PowerDNS did not create zone ${zone}: HTTP ${response.status} ${await response.text()}`);
}

async function listRRsets(apiUrl: string, apiKey: string, zone: string): Promise<RRset[]> {
  const response = await fetch(`${apiUrl}/api/v1/servers/localhost/zones/${zone}.`, { headers: { 'X-API-Key': apiKey }, signal: AbortSignal.timeout(5000) });
  if (!response.ok) throw new Error(`PowerDNS did not list zone ${zone}: HTTP ${response.status} ${await response.text()}`);
  const { rrsets } = (await response.json()) as { rrsets: { name: string; type: string; records: { content: string }[] }[] };
  return rrsets.map(({ name, type, records }) => ({ name: name.replace(/\.$/, ''), type, contents: records.map((record) => record.content) }));
}

async function dig(port: number, name: string, type: string): Promise<string[]> {
  const { stdout } = await run('dig', ['@127.0.0.1', '-p', String(port), '+short', '+norecurse', '+time=2', '+tries=1', name, type]);
  return stdout.split('\n').filter((line) => line !== '');
}
