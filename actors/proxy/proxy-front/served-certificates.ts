// The certificate each routed name presents, read from the material certhub-agent fetch writes, and
// swapped when the files change: the next handshakes get the new certificate, while connections already
// open keep the one they negotiated. Each change is handed to the TLS listener as the whole set of
// served names (tls-listener.ts says why a name is never swapped in place).
import { createHash, X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createSecureContext } from 'node:tls';
import type { Logger } from '../../../src/log/record.js';
import { materialPaths } from '../client/material-files.js';
import type { ReloadOutcome } from './protocol.js';
import type { ServedFigures } from './figures.js';
import type { ServedMaterial, TlsListener } from './tls-listener.js';
import { certificateDnsNames, matchServerName } from './server-names.js';

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
  /** What is served for the name; undefined before the first load. */
  material?: ServedMaterial;
}

export class ServedCertificates {
  private readonly served = new Map<string, Served>();
  /** The next hand-over to the listener, which takes every change made until it starts. */
  private pending: Promise<void> | undefined;
  /** The last hand-over: the next one starts after it. */
  private handedOver: Promise<void> = Promise.resolve();

  constructor(
    private readonly listener: TlsListener,
    private readonly materialDir: string,
    domains: readonly string[],
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

  /** Whether `host` (lower case) is a route's name or another name of a served certificate, wildcards matched as SNI is. */
  servesName(host: string): boolean {
    for (const [domain, served] of this.served) {
      if (domain === host) return true;
      if (served.material !== undefined && matchServerName(host, served.material.names) !== undefined) return true;
    }
    return false;
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
    if (served.material !== undefined) await this.handOver();
  }

  /** Reloads every name; a failure of one is logged and does not stop the others. */
  async reloadAll(): Promise<void> {
    await Promise.all(
      this.domains.map((domain) =>
        this.reload(domain).catch((error: unknown) => this.log.error('certificate reload failed', { domain, error: String(error) })),
      ),
    );
  }

  /** Each name's served certificate, for the role's metrics. */
  figures(): ServedFigures[] {
    return [...this.served].map(([domain, { expiresAt, swaps }]) => ({ domain, swaps, ...(expiresAt === undefined ? {} : { expiresAt }) }));
  }

  private async load(domain: string, served: Served): Promise<ReloadOutcome> {
    const paths = materialPaths(this.materialDir, domain);
    let fullchain: Buffer;
    let key: Buffer;
    try {
      [fullchain, key] = await Promise.all([readFile(paths.fullchain), readFile(paths.key)]);
    } catch (error) {
      return this.keep(
        domain,
        served,
        `no material for ${domain} in ${paths.folder} yet (${(error as NodeJS.ErrnoException).code ?? String(error)}); its handshakes are refused until the proxy's own fetch from certhub writes it (its \`fetch:\` lines say why it has not)`,
      );
    }
    const digest = createHash('sha256').update(fullchain).update('\0').update(key).digest('hex');
    if (digest === served.digest) return 'unchanged';
    const problem = usableProblem(domain, fullchain, key);
    if (problem !== undefined) return this.keep(domain, served, `the material of ${domain} in ${paths.folder} is not used: ${problem}`);

    // Taken out by a reload while the files were read.
    if (this.served.get(domain) !== served) return 'kept';
    const leaf = new X509Certificate(fullchain);
    served.material = { fullchain, key, names: certificateDnsNames(leaf).filter((name) => name !== domain) };
    await this.handOver();
    const swapped = served.digest !== undefined;
    served.digest = digest;
    served.lastProblem = undefined;
    served.expiresAt = Date.parse(leaf.validTo) / 1000;
    served.swaps++;
    this.log.info(swapped ? 'renewed certificate served' : 'certificate served', {
      domain,
      serial: leaf.serialNumber,
      expires: new Date(leaf.validTo).toISOString(),
    });
    return 'swapped';
  }

  /**
   * Gives the listener every name's material. Loads that end while one hand-over waits to start share
   * it: a start-up with many names builds the listener once, not once per name.
   */
  private handOver(): Promise<void> {
    this.pending ??= this.handedOver
      .then(() => new Promise<void>((resolve) => setImmediate(resolve)))
      .then(() => {
        this.pending = undefined;
        const materials = new Map<string, ServedMaterial>();
        for (const [domain, { material }] of this.served) if (material !== undefined) materials.set(domain, material);
        return this.listener.serve(materials);
      });
    this.handedOver = this.pending.catch(() => {});
    return this.pending;
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
