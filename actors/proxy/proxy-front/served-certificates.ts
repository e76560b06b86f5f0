// The certificate each routed name presents, read from the material certhub-agent fetch writes, and
// swapped on a live listener when the files change: the next handshakes get the new certificate, while
// connections already open keep the one they negotiated (their TLS session holds its own reference).
//
// uWS takes certificates as file paths only and reads them when a name is added, so each swap copies
// the validated pair into a private folder first: a fetch rewriting the files meanwhile cannot hand uWS
// a leaf and a key that do not match. A name is removed and added again to swap (adding a name that
// exists keeps the old context), and removing a name drops its routes, so `mount` adds them again.
// Re-adding a name on a live uWS listener was reported unsafe for kept-alive connections elsewhere;
// here an idle kept-alive connection and a download in flight both outlive swaps
// (test/integration/agent-proxy-streams.test.ts).
import { createHash, X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSecureContext } from 'node:tls';
import type { TemplatedApp } from 'uWebSockets.js';
import type { Logger } from '../../../src/log/record.js';
import { materialPaths } from '../client/material-files.js';
import { tlsCipherPolicy } from '../../../src/http/tls-material.js';
import type { ReloadOutcome } from './protocol.js';
import type { ServedFigures } from './figures.js';

interface Served {
  /** Hash of the fullchain and key served now; undefined before the first load. */
  digest?: string;
  /** The last problem logged, so a file left broken is reported once, not at every check. */
  lastProblem?: string;
  /** Reloads of one name run one after the other. */
  queue: Promise<unknown>;
  /** When the served certificate expires, in seconds since the epoch. */
  expiresAt?: number;
  /** Material swapped in since the thread started. */
  swaps: number;
}

export class ServedCertificates {
  private readonly served = new Map<string, Served>();
  private readonly scratch = mkdtempSync(join(tmpdir(), 'outpost-proxy-'));
  private swaps = 0;

  constructor(
    private readonly app: TemplatedApp,
    private readonly materialDir: string,
    domains: readonly string[],
    private readonly mount: (domain: string) => void,
    private readonly log: Logger,
  ) {
    for (const domain of domains) this.served.set(domain, { queue: Promise.resolve(), swaps: 0 });
  }

  get domains(): string[] {
    return [...this.served.keys()];
  }

  /** A certificate is served for the domain (some material was loaded once). */
  isServed(domain: string): boolean {
    return this.served.get(domain)?.digest !== undefined;
  }

  /** Reads the domain's files and swaps its certificate when they changed and form a usable pair. */
  reload(domain: string): Promise<ReloadOutcome> {
    const served = this.served.get(domain);
    if (served === undefined) return Promise.reject(new Error(`${domain} is not a route of this proxy`));
    const next = served.queue.then(() => this.load(domain, served));
    served.queue = next.catch(() => {});
    return next;
  }

  /** A route added by a reload: its material is read now, and its name served once it is usable. */
  add(domain: string): Promise<ReloadOutcome> {
    if (!this.served.has(domain)) this.served.set(domain, { queue: Promise.resolve(), swaps: 0 });
    return this.reload(domain);
  }

  /**
   * A route taken out by a reload: new handshakes for the name are refused. Connections open on it
   * keep their TLS session; their next requests find no route (front.ts answers them 421).
   */
  async remove(domain: string): Promise<void> {
    const served = this.served.get(domain);
    if (served === undefined) return;
    this.served.delete(domain);
    // After a load in progress, which sees the name gone and leaves the listener alone.
    await served.queue;
    if (served.digest !== undefined) this.app.removeServerName(domain);
  }

  /** Reloads every name; a failure of one is logged and does not stop the others. */
  async reloadAll(): Promise<void> {
    await Promise.all(this.domains.map((domain) => this.reload(domain).catch((error: unknown) => this.log.error('certificate reload failed', { domain, error: String(error) }))));
  }

  /** Each name's served certificate, for the role's metrics. */
  figures(): ServedFigures[] {
    return [...this.served].map(([domain, { expiresAt, swaps }]) => ({ domain, swaps, ...(expiresAt === undefined ? {} : { expiresAt }) }));
  }

  /** Removes the private copies; the listener keeps what it loaded. */
  close(): void {
    rmSync(this.scratch, { recursive: true, force: true });
  }

  private async load(domain: string, served: Served): Promise<ReloadOutcome> {
    const paths = materialPaths(this.materialDir, domain);
    let fullchain: Buffer;
    let key: Buffer;
    try {
      [fullchain, key] = await Promise.all([readFile(paths.fullchain), readFile(paths.key)]);
    } catch (error) {
      return this.keep(domain, served, `no material for ${domain} in ${paths.folder} yet (${(error as NodeJS.ErrnoException).code ?? String(error)}); its handshakes are refused until certhub-agent fetch writes it`);
    }
    const digest = createHash('sha256').update(fullchain).update('\0').update(key).digest('hex');
    if (digest === served.digest) return 'unchanged';
    const problem = usableProblem(domain, fullchain, key);
    if (problem !== undefined) return this.keep(domain, served, `the material of ${domain} in ${paths.folder} is not used: ${problem}`);

    // Taken out by a reload while the files were read.
    if (this.served.get(domain) !== served) return 'kept';
    const copy = join(this.scratch, String(++this.swaps));
    await Promise.all([writeFile(`${copy}-fullchain.pem`, fullchain, { mode: 0o600 }), writeFile(`${copy}-privkey.pem`, key, { mode: 0o600 })]);
    try {
      if (served.digest !== undefined) this.app.removeServerName(domain);
      this.app.addServerName(domain, { cert_file_name: `${copy}-fullchain.pem`, key_file_name: `${copy}-privkey.pem`, ssl_ciphers: tlsCipherPolicy });
      this.mount(domain);
    } finally {
      rmSync(`${copy}-fullchain.pem`, { force: true });
      rmSync(`${copy}-privkey.pem`, { force: true });
    }
    const swapped = served.digest !== undefined;
    served.digest = digest;
    served.lastProblem = undefined;
    const leaf = new X509Certificate(fullchain);
    served.expiresAt = Date.parse(leaf.validTo) / 1000;
    served.swaps++;
    this.log.info(swapped ? 'renewed certificate served' : 'certificate served', { domain, serial: leaf.serialNumber, expires: new Date(leaf.validTo).toISOString() });
    return 'swapped';
  }

  private keep(domain: string, served: Served, problem: string): ReloadOutcome {
    if (served.lastProblem !== problem) this.log.warn(problem, { domain });
    served.lastProblem = problem;
    return 'kept';
  }
}

/** Why a fullchain and key cannot be served for `domain`, or undefined when they can. */
function usableProblem(domain: string, fullchain: Buffer, key: Buffer): string | undefined {
  let leaf: X509Certificate;
  try {
    leaf = new X509Certificate(fullchain);
  } catch {
    return 'fullchain.pem holds no certificate';
  }
  if (leaf.checkHost(domain) === undefined) return `its certificate is for ${leaf.subjectAltName ?? leaf.subject}`;
  try {
    // Checks that the key reads and belongs to the leaf, as the TLS stack will.
    createSecureContext({ cert: fullchain, key });
  } catch (error) {
    return `the key does not fit the certificate (${(error as Error).message})`;
  }
  return undefined;
}
