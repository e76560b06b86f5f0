// Probes on a schedule (config `probes`, off by default): every interval, each host that reports is
// probed (probe.ts) at the address its last report came from, on the port it said it serves on (or
// probes.port), unless the operator configured an address for its host name (probes.addresses).
// Nothing else is ever probed: no address comes from a request but the report's own source, so a
// token holder can make certhub connect only back to itself. A report that names another
// certificate, or comes from another address, is probed at once, so the judgement follows a renewal
// without waiting for the next round.
import type { Clock } from '../../../src/actor/clock.js';
import type { Logger } from '../../../src/log/record.js';
import type { HostRecord, ProbeResult } from './deployment.js';
import { probeAddress, type ProbeSeen, type ProbeTarget } from './probe.js';
import type { ProbeSettings } from './probe-settings.js';

export type ProbeFunction = (target: ProbeTarget, timeoutMs: number) => Promise<ProbeSeen>;

export interface ProberDeps {
  clock: Clock;
  log: Logger;
  settings: ProbeSettings;
  probe: ProbeFunction;
  /** Every host that reports, with its domain. */
  hosts: () => Iterable<{ name: string; record: HostRecord }>;
  /** Keeps a result: the book judges the host again with it. */
  record: (name: string, id: string, result: ProbeResult) => Promise<void>;
  /** Probes under way at once. */
  parallel?: number;
}

/** Where a host of `name` is probed. */
export function probeTargetOf(name: string, record: HostRecord, settings: ProbeSettings): ProbeTarget {
  const configured = settings.addresses[record.name];
  if (configured !== undefined) return { host: configured.host, port: configured.port ?? record.port ?? settings.port, servername: name };
  return { host: record.address, port: record.port ?? settings.port, servername: name };
}

export class HostProber {
  /** `<domain> <host id>` of the probes under way: a host is probed once at a time. */
  private readonly underWay = new Set<string>();
  private readonly work = new Set<Promise<void>>();
  private cancelRounds: (() => void) | undefined;
  private stopped = false;

  constructor(private readonly deps: ProberDeps) {}

  /** A first round now, then one every interval. */
  start(): void {
    void this.round();
    this.cancelRounds = this.deps.clock.every(this.deps.settings.intervalMs, () => void this.round());
  }

  /** Probes one host now (its report named another certificate or address). */
  soon(name: string, record: HostRecord): void {
    this.track(this.probeOne(name, record));
  }

  /** Probes every host, a few at a time; resolves when the round is done. */
  round(): Promise<void> {
    const queue = [...this.deps.hosts()];
    const worker = async () => {
      for (let next = queue.shift(); next !== undefined && !this.stopped; next = queue.shift()) await this.probeOne(next.name, next.record);
    };
    const round = Promise.all(Array.from({ length: this.deps.parallel ?? 8 }, worker)).then(() => {});
    this.track(round);
    return round;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.cancelRounds?.();
    while (this.work.size > 0) await Promise.allSettled([...this.work]);
  }

  private async probeOne(name: string, record: HostRecord): Promise<void> {
    const key = `${name} ${record.id}`;
    if (this.stopped || this.underWay.has(key)) return;
    this.underWay.add(key);
    const target = probeTargetOf(name, record, this.deps.settings);
    const address = probeAddress(target);
    try {
      let result: ProbeResult;
      try {
        const seen = await this.deps.probe(target, this.deps.settings.timeoutMs);
        result = { at: this.at(), address, sha256: seen.sha256, not_after: seen.not_after, error: null };
      } catch (error) {
        result = { at: this.at(), address, sha256: null, not_after: null, error: error instanceof Error ? error.message : String(error) };
        if (record.probe?.error === null || record.probe === null)
          this.deps.log.warn(`${name}: the probe of host ${record.name} at ${address} failed: ${result.error}`);
      }
      if (!this.stopped) await this.deps.record(name, record.id, result);
    } catch (error) {
      this.deps.log.error(`${name}: the probe of host ${record.name} could not be kept: ${String(error)}`);
    } finally {
      this.underWay.delete(key);
    }
  }

  private at(): string {
    return new Date(this.deps.clock.now()).toISOString();
  }

  private track(work: Promise<void>): void {
    this.work.add(work);
    void work.finally(() => this.work.delete(work));
  }
}
