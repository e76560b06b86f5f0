// The hosts of every domain, in the domains actor (their one owner): a report replaces its host's
// record, is written to the domain's file, then published to the fronts with each host judged
// (deployment.ts). A deadline that passes (a host's next check plus the margin, a new certificate
// served nowhere) changes a judgement without a report: one timer, at the earliest such instant,
// publishes the domains it concerns again.
import { createHash, X509Certificate } from 'node:crypto';
import type { Clock } from '../../../src/actor/clock.js';
import { OutpostError } from '../../../src/errors.js';
import type { Logger } from '../../../src/log/record.js';
import type { DomainChange, ReplicaMessage } from '../domains/protocol.js';
import {
  assessHosts,
  recordOfReport,
  type Deployment,
  type HostJudgement,
  type HostProblem,
  type HostRecord,
  type HostView,
  type NewestCertificate,
  type ProbeResult,
} from './deployment.js';
import type { HostStore } from './host-store.js';
import type { HostReport } from './report.js';
import type { HostTokenHolder } from './host-tokens.js';
import type { Notify } from '../domains/notices.js';

export type HostsMessage = Extract<ReplicaMessage, { type: 'hosts' }>;

export interface HostBookDeps {
  store: HostStore;
  clock: Clock;
  log: Logger;
  publish: (message: HostsMessage, options: { key: string; retain: boolean }) => void;
  judgement: HostJudgement;
  /** Hosts one domain keeps; a report from one more replaces the longest silent, or is refused. */
  maxPerDomain: number;
  /** Told when a host turns stale after settle(): hosts stale already at the start are not told again. */
  notify?: Notify;
  /** With probes on (prober.ts): a first report, or one naming another certificate, address or port, is probed at once. */
  probeSoon?: (name: string, record: HostRecord) => void;
}

const longestWaitMs = 86_400_000;

const staleWords: Record<HostProblem, string> = {
  old_certificate: 'serves an older certificate',
  reload_failed: 'its reload failed',
  silent: 'not heard from by its next check',
  probe_old_certificate: 'a probe sees another certificate than the newest',
  probe_failed: 'a probe cannot complete a handshake',
};

/** A domain's replica key for its hosts: domain names hold no ':'. */
const keyOf = (name: string) => `hosts:${name}`;

/** SHA-256 of a PEM certificate's DER, hex: what agents report of the certificate they serve. */
export function certificateSha256(certPem: string): string {
  return createHash('sha256').update(new X509Certificate(certPem).raw).digest('hex');
}

export class HostBook {
  /** Domain name -> the certificate its hosts are measured against (null before the first); every domain of the book is here. */
  private readonly newest = new Map<string, { certPem: string; certificate: NewestCertificate } | null>();
  /** Domain name -> when its judgement changes next without a report. */
  private readonly deadlines = new Map<string, number>();
  /** Domain name -> the ids of its hosts judged stale when it was last published. */
  private readonly staleHosts = new Map<string, Set<string>>();
  private settled = false;
  private cancelTimer: (() => void) | undefined;
  private timerAt: number | undefined;
  private stopped = false;

  constructor(
    private readonly hosts: Map<string, Map<string, HostRecord>>,
    private readonly deps: HostBookDeps,
  ) {}

  /** Follows the domain book's changes: a new certificate is what hosts are measured against; a removed domain's hosts go with it. */
  domainChanged(change: DomainChange): void {
    if (change.type === 'removed') {
      this.forget(change.name);
      return;
    }
    const { name, issued_at } = change.domain;
    const certPem = change.material?.cert_pem;
    const known = this.newest.get(name);
    if (certPem === undefined || issued_at === null) {
      if (known === undefined || known !== null) {
        this.newest.set(name, null);
        if (this.hosts.has(name)) this.publish(name);
      }
      return;
    }
    if (known?.certPem === certPem) return;
    this.newest.set(name, { certPem, certificate: { sha256: certificateSha256(certPem), issued_at } });
    if (this.hosts.has(name)) this.publish(name);
  }

  /** After the domain book published every domain: hosts of a domain it does not hold (removed while certhub was down) are dropped. */
  async settle(): Promise<void> {
    for (const name of [...this.hosts.keys()]) {
      if (this.newest.has(name)) continue;
      this.hosts.delete(name);
      await this.deps.store.remove(name);
      this.deps.log.info(`dropped the hosts of ${name}, which is no domain of certhub's`);
    }
    this.settled = true;
  }

  /**
   * A host's report on `name`, from `address`; answers the domain's deployment with it. A report made
   * with a host token (`holder`) carries that token's host name, and may not take over a host that
   * reports with another host token.
   */
  async report(name: string, given: HostReport, address: string, holder?: HostTokenHolder): Promise<Deployment> {
    if (!this.newest.has(name)) throw new OutpostError('ERR_NOT_FOUND', `no domain ${name}`);
    const report = holder === undefined ? given : { ...given, host_name: holder.host };
    let hosts = this.hosts.get(name);
    if (hosts === undefined) {
      hosts = new Map();
      this.hosts.set(name, hosts);
    }
    const previous = hosts.get(report.host_id);
    if (holder !== undefined && previous !== undefined && previous.host_token !== null && previous.host_token !== holder.id)
      throw new OutpostError('ERR_FORBIDDEN', `host ${report.host_id} of ${name} reports with another host token: this token is ${holder.host}'s`);
    if (previous === undefined && hosts.size >= this.deps.maxPerDomain) this.makeRoom(name, hosts);
    const record = recordOfReport(previous, report, address, this.deps.clock.now(), holder?.id ?? null);
    hosts.set(report.host_id, record);
    await this.deps.store.write(name, [...hosts.values()]);
    if (previous === undefined) this.deps.log.info(`${name}: host ${report.host_name} (${address}) reports for the first time`);
    const deployment = this.publish(name);
    const moved = previous === undefined || previous.sha256 !== record.sha256 || previous.address !== record.address || previous.port !== record.port;
    if (moved) this.deps.probeSoon?.(name, record);
    return deployment;
  }

  /** Every host that reports, with its domain: what the prober probes. */
  *reporting(): Iterable<{ name: string; record: HostRecord }> {
    for (const [name, hosts] of this.hosts) for (const record of hosts.values()) yield { name, record };
  }

  /** Keeps what a probe of host `id` of `name` saw, unless the host was removed meanwhile, and judges it. */
  async recordProbe(name: string, id: string, probe: ProbeResult): Promise<void> {
    const hosts = this.hosts.get(name);
    const record = hosts?.get(id);
    if (hosts === undefined || record === undefined || this.stopped) return;
    hosts.set(id, { ...record, probe });
    await this.deps.store.write(name, [...hosts.values()]);
    this.publish(name);
  }

  /** The operator removes a host of `name` (one taken out of service); a report from it later adds it again. */
  async remove(name: string, id: string): Promise<void> {
    const hosts = this.hosts.get(name);
    const host = hosts?.get(id);
    if (hosts === undefined || host === undefined) throw new OutpostError('ERR_NOT_FOUND', `${name} has no host ${id}`);
    hosts.delete(id);
    if (hosts.size === 0) this.hosts.delete(name);
    await this.deps.store.write(name, [...hosts.values()]);
    this.publish(name);
    this.deps.log.info(`${name}: host ${host.name} (${id}) removed`);
  }

  stop(): Promise<void> {
    this.stopped = true;
    this.cancelTimer?.();
    return this.deps.store.flush();
  }

  /** Full: the host silent longest goes, when it is silent past its deadline; else the report is refused. */
  private makeRoom(name: string, hosts: Map<string, HostRecord>): void {
    const now = this.deps.clock.now();
    const silent = assessHosts([...hosts.values()], null, now, this.deps.judgement)
      .hosts.filter((host) => host.problems.includes('silent'))
      .sort((a, b) => (a.last_report_at < b.last_report_at ? -1 : 1))[0];
    if (silent === undefined)
      throw new OutpostError(
        'ERR_CONFLICT',
        `${name} has ${hosts.size} hosts reporting, the most it keeps: remove one taken out of service (DELETE /api/admin/domains/${name}/hosts/<id>)`,
      );
    hosts.delete(silent.id);
    this.deps.log.info(`${name}: host ${silent.name} (${silent.id}), silent since ${silent.last_report_at}, makes room for a new one`);
  }

  /** Notices of the hosts of `name` that turned stale since its last judgement. */
  private tellStale(name: string, hosts: readonly HostView[]): void {
    const before = this.staleHosts.get(name);
    const now = new Set(hosts.filter((host) => host.state === 'stale').map((host) => host.id));
    if (now.size === 0) this.staleHosts.delete(name);
    else this.staleHosts.set(name, now);
    if (!this.settled || this.deps.notify === undefined) return;
    for (const host of hosts) {
      if (host.state !== 'stale' || before?.has(host.id) === true) continue;
      this.deps.notify({
        // A failed reload is told as such: the certificate reached the host, and its reload command is what to fix.
        event: host.problems.includes('reload_failed') ? 'host_reload_failed' : 'host_stale',
        domain: name,
        reason: host.problems.map((problem) => staleWords[problem]).join(', '),
        attempt: null,
        next_attempt_at: null,
        expires_at: null,
        ca: null,
        host: { id: host.id, name: host.name },
        at: new Date(this.deps.clock.now()).toISOString(),
      });
    }
  }

  private forget(name: string): void {
    this.staleHosts.delete(name);
    this.newest.delete(name);
    this.deadlines.delete(name);
    if (!this.hosts.delete(name)) return;
    this.deps.publish(
      { type: 'hosts', name, hosts: [], deployment: assessHosts([], null, 0, this.deps.judgement).deployment },
      { key: keyOf(name), retain: false },
    );
    this.deps.store.remove(name).catch((error: unknown) => this.deps.log.warn(`the hosts file of ${name} could not be removed: ${String(error)}`));
  }

  /** Judges the hosts of `name` now and publishes them; arms the timer for the next deadline. */
  private publish(name: string): Deployment {
    const records = [...(this.hosts.get(name)?.values() ?? [])];
    const { hosts, deployment, nextChangeAt } = assessHosts(records, this.newest.get(name)?.certificate ?? null, this.deps.clock.now(), this.deps.judgement);
    if (nextChangeAt === null) this.deadlines.delete(name);
    else this.deadlines.set(name, nextChangeAt);
    this.tellStale(name, hosts);
    this.deps.publish({ type: 'hosts', name, hosts, deployment }, { key: keyOf(name), retain: records.length > 0 });
    this.arm();
    return deployment;
  }

  private arm(): void {
    if (this.stopped) return;
    let earliest: number | undefined;
    for (const at of this.deadlines.values()) if (earliest === undefined || at < earliest) earliest = at;
    if (earliest === this.timerAt) return;
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    this.timerAt = earliest;
    if (earliest === undefined) return;
    // A timer's delay is at most 2^31 - 1 ms: a later deadline wakes the timer once a day until it is near.
    this.cancelTimer = this.deps.clock.after(Math.min(Math.max(0, earliest - this.deps.clock.now()), longestWaitMs), () => {
      this.cancelTimer = undefined;
      this.timerAt = undefined;
      const now = this.deps.clock.now();
      for (const [name, at] of [...this.deadlines]) if (at <= now) this.publish(name);
      this.arm();
    });
  }
}
