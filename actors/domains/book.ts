// The domains and what happens to them: every change goes to the domain's own file first, then to the
// replica the fronts serve from. Issuing runs in the background per domain, at most `parallelOrders`
// at a time, and a failure is retried with per-domain backoff (backoff.ts).
import type { Clock } from '../../src/actor/clock.js';
import { OutpostError } from '../../src/errors.js';
import type { Logger } from '../../src/log/record.js';
import { nextAttempt } from './backoff.js';
import type { Issuer } from './issuer.js';
import { nextStatus, type DomainEvent } from './lifecycle.js';
import { classifyTarget, parseDomainName } from './names.js';
import type { DomainView, NewDomainInput, ReplicaMessage } from './protocol.js';
import { isoTime, newDomainRecord, type DomainRecord } from './record.js';
import type { DomainStore, StoredDomain } from './store.js';
import { newDomainToken } from './token.js';
import { domainView, replicaMessage } from './view.js';

export interface DomainBookDeps {
  store: DomainStore;
  issuer: Issuer;
  clock: Clock;
  log: Logger;
  publish: (message: ReplicaMessage) => void;
  /** Orders running at once. */
  parallelOrders: number;
}

/** How often fetch records (when and from where) are written and published: not once per request. */
const fetchFlushMs = 5000;

export class DomainBook {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly waiting: string[] = [];
  private running = 0;
  private readonly fetchedSinceFlush = new Set<string>();
  private readonly fetchFlush: NodeJS.Timeout;
  private stopped = false;

  constructor(
    private readonly baseDomain: string,
    private readonly domains: Map<string, StoredDomain>,
    private readonly deps: DomainBookDeps,
  ) {
    this.fetchFlush = setInterval(() => void this.flushFetches(), fetchFlushMs);
    this.fetchFlush.unref();
  }

  /** Publishes every domain and resumes what was in flight when the process last stopped. */
  async resume(): Promise<void> {
    for (const domain of this.domains.values()) {
      if (domain.record.status === 'issuing') await this.transition(domain, 'interrupted');
      this.deps.publish(replicaMessage(domain));
      this.plan(domain);
    }
  }

  list(): DomainView[] {
    return [...this.domains.values()].map((domain) => domainView(domain.record));
  }

  async add(input: NewDomainInput): Promise<DomainView> {
    const { name, label } = parseDomainName(input.name, this.baseDomain);
    const target = classifyTarget(input.target, name);
    if (this.domains.has(name)) throw new OutpostError('ERR_CONFLICT', `${name} exists already`);
    const domain: StoredDomain = { record: newDomainRecord({ name, label, ...target, token: newDomainToken() }, this.deps.clock.now()), material: undefined };
    this.domains.set(name, domain);
    try {
      await this.save(domain);
    } catch (error) {
      this.domains.delete(name);
      throw error;
    }
    this.deps.log.info(`added ${name} -> ${target.target} (${target.record_type})`);
    this.plan(domain);
    return domainView(domain.record);
  }

  async setTarget(nameOrLabel: string, input: string): Promise<DomainView> {
    const domain = this.find(nameOrLabel);
    const target = classifyTarget(input, domain.record.name);
    domain.record = { ...domain.record, ...target };
    await this.save(domain);
    this.deps.log.info(`${domain.record.name} now points to ${target.target} (${target.record_type})`);
    // A target change needs a new record, not a new certificate; while the domain waits to be issued
    // its order publishes the record anyway.
    if (domain.record.status === 'issued') this.republish(domain);
    return domainView(domain.record);
  }

  async remove(nameOrLabel: string): Promise<void> {
    const domain = this.find(nameOrLabel);
    const { name } = domain.record;
    // The token dies with the replica entry, before anything slower happens.
    this.domains.delete(name);
    clearTimeout(this.timers.get(name));
    this.timers.delete(name);
    this.deps.publish({ type: 'removed', name });
    await this.deps.store.remove(name);
    this.deps.log.info(`removed ${name}`);
    this.deps.issuer.removeRecord(name).catch((error: unknown) => this.deps.log.warn(`the record of ${name} could not be removed: ${String(error)}`));
  }

  async rotate(nameOrLabel: string): Promise<DomainView> {
    const domain = this.find(nameOrLabel);
    domain.record = { ...domain.record, token: newDomainToken() };
    await this.save(domain);
    this.deps.log.info(`rotated the token of ${domain.record.name}`);
    return domainView(domain.record);
  }

  recordFetch(name: string, from: string, at: number): void {
    const domain = this.domains.get(name);
    if (domain === undefined) return;
    domain.record = { ...domain.record, last_fetch: { at: isoTime(at), from } };
    this.fetchedSinceFlush.add(name);
  }

  /** Stops starting work and writes what is only in memory. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.fetchFlush);
    for (const timer of this.timers.values()) clearTimeout(timer);
    await this.flushFetches();
    await this.deps.store.flush();
  }

  private find(nameOrLabel: string): StoredDomain {
    const { name } = parseDomainName(nameOrLabel, this.baseDomain);
    const domain = this.domains.get(name);
    if (domain === undefined) throw new OutpostError('ERR_NOT_FOUND', `no domain ${name}`);
    return domain;
  }

  /** Writes the domain's file, then tells the fronts. */
  private async save(domain: StoredDomain): Promise<void> {
    await this.deps.store.write(domain);
    if (this.domains.get(domain.record.name) === domain) this.deps.publish(replicaMessage(domain));
  }

  private async transition(domain: StoredDomain, event: DomainEvent, change: Partial<DomainRecord> = {}): Promise<void> {
    const status = nextStatus(domain.record.status, event);
    if (status === 'removed') return;
    domain.record = { ...domain.record, ...change, status };
    await this.save(domain);
  }

  /** Schedules what the domain waits for: an order now, or a retry when its backoff ends. */
  private plan(domain: StoredDomain): void {
    const { name, status, retry } = domain.record;
    if (status === 'pending') this.enqueue(name);
    if (status === 'error' && retry.next_attempt_at !== null) {
      const delay = Math.max(0, Date.parse(retry.next_attempt_at) - this.deps.clock.now());
      this.timers.set(name, setTimeout(() => void this.retry(name), delay));
    }
  }

  private async retry(name: string): Promise<void> {
    this.timers.delete(name);
    const domain = this.domains.get(name);
    if (domain === undefined || this.stopped || domain.record.status !== 'error') return;
    await this.transition(domain, 'retry', { retry: { ...domain.record.retry, next_attempt_at: null, waiting_for: null } });
    this.enqueue(name);
  }

  private enqueue(name: string): void {
    if (!this.waiting.includes(name)) this.waiting.push(name);
    this.pump();
  }

  private pump(): void {
    while (!this.stopped && this.running < this.deps.parallelOrders && this.waiting.length > 0) {
      const name = this.waiting.shift() ?? '';
      this.running++;
      this.order(name)
        .catch((error: unknown) => this.deps.log.error(`the order of ${name} failed unexpectedly: ${String(error)}`))
        .finally(() => {
          this.running--;
          this.pump();
        });
    }
  }

  /** Publishes the record and issues a certificate; a failure leaves the domain in error with its reason and a retry planned. */
  private async order(name: string): Promise<void> {
    const domain = this.domains.get(name);
    if (domain === undefined || domain.record.status !== 'pending') return;
    await this.transition(domain, 'start');
    this.deps.log.info(`issuing a certificate for ${name}`);
    try {
      await this.deps.issuer.publishRecord(name, domain.record.target, domain.record.record_type);
      const issued = await this.deps.issuer.issue(name);
      if (this.domains.get(name) !== domain) return;
      domain.material = issued.material;
      await this.transition(domain, 'issued', {
        error: null,
        issued_at: isoTime(issued.notBefore),
        expires_at: isoTime(issued.notAfter),
        published: { target: domain.record.target, record_type: domain.record.record_type },
        retry: { failures: 0, next_attempt_at: null, waiting_for: null },
      });
      this.deps.log.info(`issued ${name}, valid until ${isoTime(issued.notAfter)}`);
    } catch (error) {
      if (this.domains.get(name) !== domain) return;
      const failures = domain.record.retry.failures + 1;
      const retryAfterMs = retryAfterOf(error);
      const next = nextAttempt(failures, this.deps.clock.now(), retryAfterMs);
      const reason = error instanceof Error ? error.message : String(error);
      await this.transition(domain, 'failed', { error: reason, retry: { failures, next_attempt_at: isoTime(next.at), waiting_for: 'backoff' } });
      this.deps.log.error(`issuing ${name} failed (attempt ${failures}): ${reason}; next attempt at ${isoTime(next.at)}`);
      this.plan(domain);
    }
  }

  private republish(domain: StoredDomain): void {
    const { name, target, record_type } = domain.record;
    this.deps.issuer.publishRecord(name, target, record_type).then(
      async () => {
        if (this.domains.get(name) !== domain) return;
        domain.record = { ...domain.record, published: { target, record_type } };
        await this.save(domain);
      },
      (error: unknown) => this.deps.log.error(`the record of ${name} could not be changed to ${target}: ${String(error)}`),
    );
  }

  private async flushFetches(): Promise<void> {
    const names = [...this.fetchedSinceFlush];
    this.fetchedSinceFlush.clear();
    for (const name of names) {
      const domain = this.domains.get(name);
      if (domain !== undefined) await this.save(domain);
    }
  }
}

/** The CA's Retry-After carried by an order's failure (acme/errors.ts), if any. */
function retryAfterOf(error: unknown): number | undefined {
  const value = (error as { retryAfterMs?: unknown } | null)?.retryAfterMs;
  return typeof value === 'number' ? value : undefined;
}
