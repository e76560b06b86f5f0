// The domains and what happens to them: every change goes to the domain's own file first, then to the
// replica the fronts serve from. Issuing runs in the background per domain, at most `parallelOrders`
// at a time; new certificates wait for a slot in the CA budget (budget.ts), a failure is retried
// with per-domain backoff (backoff.ts), and certificates are renewed when due (renewals.ts).
import type { Clock } from '../../../src/actor/clock.js';
import { OutpostError } from '../../../src/errors.js';
import type { Logger } from '../../../src/log/record.js';
import { nextAttempt, type BackoffSettings, type NextAttempt } from './backoff.js';
import type { BudgetGate } from './budget.js';
import type { Issuer } from './issuer.js';
import {
  awaitIssuance,
  certificateKind,
  deferRenewal,
  renewalDueNow,
  forgetAriState,
  markExpiryNoticeSent,
  markFailed,
  markIssued,
  needsPublishing,
  resumeAfterRestart,
  retry,
  rotateToken,
  startOrder,
  waitForBudget,
} from './logic.js';
import { refuseCnameLoop, refuseOverLimit } from './limits.js';
import { checkedProfile } from './profile-choice.js';
import type { Target } from '../dns/targets.js';
import { classifyTarget, parseDomainName } from './names.js';
import { addressNames, certificateNames, parseExtraNames, refuseNameOverlap } from './name-set.js';
import type { DomainChange, DomainView, NewDomainInput } from './protocol.js';
import { isoTime, newDomainRecord, type DomainRecord } from './record.js';
import { askRenewalInfo, DomainWakeups, needsRenewalPlan, renewalDue, replacesOf, staleAriState } from './renewals.js';
import { caAfterFailure, type FallbackSettings } from './ca-fallback.js';
import type { DomainWrites, StoredDomain } from './store.js';
import { newDomainToken } from './token.js';
import { domainChange, domainView } from './view.js';
import { noNotices, type DomainNotice, type Notify } from './notices.js';
import { expiryNoticeAt } from '../renewal/logic.js';
import { acceptCsr, awaitCsr, certificateSpki, csrAwaitsOrder, csrForOrder, markCsrUsed, nameSetOf, withOwnKey } from './own-key.js';

export interface DomainBookDeps {
  store: DomainWrites;
  issuer: Issuer;
  clock: Clock;
  log: Logger;
  publish: (change: DomainChange) => void;
  /** Counts new certificates against the CA's limit (unlimitedBudget in demo mode). */
  budget: BudgetGate;
  /** Orders running at once. */
  parallelOrders: number;
  /** max_domains: an add past it is refused (limits.ts). */
  maxDomains: number;
  /** allow_apex: a domain's names may hold the base domain itself and `*.<base>` (name-set.ts); false by default. */
  allowApex?: boolean;
  /** The delays between retries after a failure; defaultBackoff unless acme.retry_backoff_seconds says otherwise. */
  backoff?: BackoffSettings;
  /** Where issuances, failures, near expiries and CA changes are told (notify, ../notify/); none by default. */
  notify?: Notify;
  /**
   * Whether timed steps run (renewals, ARI checks, expiry notices, retries after a failure); default
   * true. `--demo` turns them off: the spec has it skip the renewal task and contact nothing.
   */
  scheduled?: boolean;
  /** acme.cas and acme.fallback_after: which CA a failing domain's next attempt goes to (ca-fallback.ts); one CA by default. */
  fallback?: FallbackSettings;
  /** Remembers a token rotated away or removed with its domain (retired-token-keeper.ts); nothing by default. */
  retire?: (name: string, token: string, reason: 'rotated' | 'removed') => Promise<void>;
  /** acme.reuse_csr: an own_key domain's renewal orders with its last CSR instead of waiting for the host's next (own-key.ts). */
  reuseCsr?: boolean;
}

/** Loaded on first use, not at start (see renewal-plan.ts). */
const renewalPlan = () => import('./renewal-plan.js');

/** How often fetch records (when and from where) are written and published: not once per request. */
const fetchFlushMs = 5000;

export class DomainBook {
  private readonly wakeups: DomainWakeups;
  private readonly waiting: string[] = [];
  private running = 0;
  private readonly fetchedSinceFlush = new Set<string>();
  /** Cancels the flush a fetch armed; undefined when none is pending. */
  private cancelFetchFlush: (() => void) | undefined;
  private stopped = false;
  /** The background work `resume` leaves: renewal plans to make, records to write. */
  private updating: Promise<void> = Promise.resolve();
  /** The account URL each CA's certificates were last issued with, as this run has seen (directory URL -> account URL). */
  private readonly accountSeen = new Map<string, string>();
  /** The pass over every domain's ARI state under way (settleAriState), if any. */
  private settling: Promise<void> | undefined;

  constructor(
    private readonly baseDomain: string,
    private readonly domains: Map<string, StoredDomain>,
    private readonly deps: DomainBookDeps,
  ) {
    this.wakeups = new DomainWakeups(deps.clock, (name) => {
      this.wake(name).catch((error: unknown) => deps.log.error(`${name} could not be woken for its next step: ${String(error)}`));
    });
  }

  /**
   * Publishes every domain and resumes what was in flight when the process last stopped. What is left
   * to bring records up to date (an order cut by the stop; a renewal plan, which a store written by
   * an older version lacks and which takes a certificate parse each) is done afterwards, in the
   * background, one domain at a time: it is derived from the files themselves, so a stop before it
   * is written derives it again, and 10,000 such domains never hold the actor past its ready deadline.
   */
  resume(): Promise<void> {
    const outdated: StoredDomain[] = [];
    for (const domain of this.domains.values()) {
      const resumed = resumeAfterRestart(domain.record);
      if (resumed !== domain.record || needsRenewalPlan(domain)) outdated.push(domain);
      domain.record = resumed;
      this.deps.publish(domainChange(domain));
      this.plan(domain);
    }
    if (this.deps.scheduled !== false) this.wakeups.start();
    this.updating = this.bringUpToDate(outdated).then(() => this.settleAriState());
    return Promise.resolve();
  }

  /**
   * Drops the ARI state (CertID, renewalInfo checks) of every domain whose certificate a CA or account
   * certhub does not hold now issued: after a change of directory URL, of acme.cas, or of account (a CA
   * that forgot it, a lost account.json), `replaces` and renewalInfo must not name a CertID the CA's
   * present account does not know. Asks the acme actor for the accounts (no request to a CA); a
   * failure is logged, and the next issuance or renewalInfo check catches the change.
   */
  settleAriState(): Promise<void> {
    this.settling ??= (async () => {
      try {
        const accounts = await this.deps.issuer.accounts();
        if (accounts.length === 0) return;
        for (const { directoryUrl, accountUrl } of accounts) if (accountUrl !== null) this.accountSeen.set(directoryUrl, accountUrl);
        let dropped = 0;
        for (const domain of this.domains.values()) {
          if (this.stopped) return;
          if (!staleAriState(domain.record, accounts)) continue;
          await this.update(domain, forgetAriState(domain.record));
          this.wakeups.track(domain.record);
          dropped++;
        }
        if (dropped > 0)
          this.deps.log.warn(
            `${dropped} domains hold certificates from a CA or account certhub does not hold now (${accounts.map((ca) => `${ca.directoryUrl}: ${ca.accountUrl ?? 'no account yet'}`).join(', ')}): their ARI state is dropped, and they renew by the lifetime rule until their next certificate`,
          );
      } catch (error) {
        this.deps.log.error(`the ARI state of the domains could not be checked against the CA accounts: ${String(error)}`);
      } finally {
        this.settling = undefined;
      }
    })();
    return this.settling;
  }

  list(): DomainView[] {
    return [...this.domains.values()].map((domain) => domainView(domain.record));
  }

  async add(input: NewDomainInput): Promise<DomainView> {
    const { name, label } = parseDomainName(input.name, this.baseDomain);
    const target = classifyTarget(input.target, name);
    const names = parseExtraNames(input.names, name, this.nameRules);
    const wildcardRecords = input.wildcard_records === true;
    const recordNames = addressNames({ name, names, wildcard_records: wildcardRecords });
    if (this.domains.has(name)) throw new OutpostError('ERR_CONFLICT', `${name} exists already`);
    refuseNameOverlap([name, ...names], this.records(), undefined);
    refuseOverLimit(this.domains.size, this.deps.maxDomains);
    refuseCnameLoop(name, target, this.targetOf);
    for (const recordName of recordNames) await this.claimRecord(recordName, input.adopt === true);
    // Checked again after the provider's answer: another add or change may have come in meanwhile.
    if (this.domains.has(name)) throw new OutpostError('ERR_CONFLICT', `${name} exists already`);
    refuseNameOverlap([name, ...names], this.records(), undefined);
    refuseOverLimit(this.domains.size, this.deps.maxDomains);
    refuseCnameLoop(name, target, this.targetOf);
    const profile = input.profile === undefined || input.profile === null ? null : await checkedProfile(input.profile, this.deps.issuer, this.deps.log);
    if (this.domains.has(name)) throw new OutpostError('ERR_CONFLICT', `${name} exists already`);
    refuseNameOverlap([name, ...names], this.records(), undefined);
    const domain: StoredDomain = {
      record: newDomainRecord(
        { name, label, ...target, token: newDomainToken(), profile, names, wildcard_records: wildcardRecords, own_key: input.own_key === true },
        this.deps.clock.now(),
      ),
      material: undefined,
    };
    this.domains.set(name, domain);
    try {
      await this.save(domain);
    } catch (error) {
      this.domains.delete(name);
      throw error;
    }
    this.deps.log.info(`added ${name}${names.length === 0 ? '' : ` with ${names.join(', ')}`} -> ${target.target} (${target.record_type})`);
    // The domain as it was added (pending), as the first replica message shows it: the order that
    // plan() may start at once publishes its own changes after it, in order.
    const added = domainView(domain.record);
    this.plan(domain);
    return added;
  }

  /**
   * Asked before the domain exists or its target changes, so a refusal (409: records certhub did not
   * create) leaves nothing behind. A provider that cannot answer now (a 429, an outage) does not block a
   * plain add: publishing refuses foreign records too, and retries. An adoption must be done now.
   */
  private async claimRecord(name: string, adopt: boolean): Promise<void> {
    try {
      await this.deps.issuer.claimRecord(name, adopt);
    } catch (error) {
      if (adopt || (error instanceof OutpostError && error.code === 'ERR_CONFLICT')) throw error;
      this.deps.log.warn(`the address records of ${name} could not be checked before the add (publishing checks them again): ${String(error)}`);
    }
  }

  /**
   * The records at the name are claimed first, as for an add: someone else's refuse the change (409)
   * unless `adopt`, which is also how a domain whose records an earlier certhub wrote without its mark
   * is taken over. A refusal leaves the domain as it was.
   */
  async setTarget(nameOrLabel: string, input: string, adopt = false): Promise<DomainView> {
    const domain = this.find(nameOrLabel);
    const target = classifyTarget(input, domain.record.name);
    refuseCnameLoop(domain.record.name, target, this.targetOf);
    for (const recordName of addressNames(domain.record)) await this.claimRecord(recordName, adopt);
    // Checked again after the provider's answer: another change may have come in meanwhile.
    refuseCnameLoop(domain.record.name, target, this.targetOf);
    domain.record = { ...domain.record, ...target };
    await this.save(domain);
    this.deps.log.info(`${domain.record.name} now points to ${target.target} (${target.record_type})`);
    // A target change needs a new record, not a new certificate; while the domain waits to be issued
    // its order publishes the record anyway.
    if (domain.record.status === 'issued') this.republish(domain);
    return domainView(domain.record);
  }

  /** The profile applies from the next order on (a renewal, a retry): the certificate served stays. */
  async setProfile(nameOrLabel: string, profile: string | null): Promise<DomainView> {
    const domain = this.find(nameOrLabel);
    const checked = profile === null ? null : await checkedProfile(profile, this.deps.issuer, this.deps.log);
    domain.record = { ...domain.record, profile: checked };
    await this.save(domain);
    this.deps.log.info(`${domain.record.name} orders ${checked === null ? 'the default profile' : `the ACME profile ${checked}`}`);
    return domainView(domain.record);
  }

  /**
   * The records of the names added are claimed first, as for an add; once the set is saved they are
   * written (when the domain's record is out), the records of the names dropped are removed, and an
   * issued domain orders the certificate for its new set at once, serving the old one until it comes.
   */
  async setNames(nameOrLabel: string, input: string[], wildcardRecords?: boolean): Promise<DomainView> {
    const domain = this.find(nameOrLabel);
    const { name } = domain.record;
    const names = parseExtraNames(input, name, this.nameRules);
    const next = { name, names, wildcard_records: wildcardRecords ?? domain.record.wildcard_records };
    refuseNameOverlap(certificateNames(next), this.records(), name);
    const before = addressNames(domain.record);
    const after = addressNames(next);
    for (const added of after.filter((one) => !before.includes(one))) await this.claimRecord(added, false);
    // Checked again after the provider's answer: another change may have come in meanwhile.
    refuseNameOverlap(certificateNames(next), this.records(), name);
    const setChanged = certificateNames(next).join(' ') !== certificateNames(domain.record).join(' ');
    domain.record = { ...domain.record, names: next.names, wildcard_records: next.wildcard_records };
    // An own_key domain's CSR names the old set: the order for the new one waits for the host's next.
    if (domain.record.own_key && setChanged) domain.record = { ...domain.record, csr: null, csr_wanted: true };
    await this.save(domain);
    this.deps.log.info(`${name} covers ${certificateNames(next).join(', ')}`);
    for (const dropped of before.filter((one) => !after.includes(one)))
      this.deps.issuer.removeRecord(dropped).catch((error: unknown) => this.deps.log.warn(`the record of ${dropped} could not be removed: ${String(error)}`));
    if (domain.record.published !== null) this.republish(domain);
    if (domain.record.status === 'issued') {
      await this.update(domain, renewalDueNow(domain.record, this.deps.clock.now()));
      this.enqueue(name);
    }
    return domainView(domain.record);
  }

  /**
   * The admin marks the domain own_key (its key stays on its host) or takes the mark off (own-key.ts).
   * Marked, the key certhub held is dropped from its material at once. The mark stays on a domain
   * that holds a certificate for its host's key: certhub has no key to serve it with.
   */
  async setOwnKey(nameOrLabel: string, ownKey: boolean): Promise<DomainView> {
    const domain = this.find(nameOrLabel);
    const record = withOwnKey(domain.record, ownKey);
    if (record === domain.record) return domainView(record);
    if (!ownKey && domain.material !== undefined)
      throw new OutpostError(
        'ERR_CONFLICT',
        `${record.name} holds a certificate for its host's key, which certhub does not have: remove the domain and add it again to have certhub make its key`,
      );
    const before = { record: domain.record, material: domain.material };
    if (domain.material !== undefined) domain.material = { ...domain.material, key_pem: '' };
    try {
      await this.update(domain, record);
    } catch (error) {
      // The record and its material change together, or not at all.
      domain.record = before.record;
      domain.material = before.material;
      throw error;
    }
    this.deps.log.info(
      `${record.name} ${ownKey ? 'keeps its key on its host: certhub holds no key for it and orders for the CSR its host sends' : 'has its key made by certhub'}`,
    );
    this.plan(domain);
    return domainView(domain.record);
  }

  /**
   * The CSR an own_key domain's host sent with the domain's token: checked (csr-check.ts), kept, and
   * ordered for when it asks for a certificate the domain does not have (own-key.ts acceptCsr).
   */
  async submitCsr(nameOrLabel: string, pem: string): Promise<DomainView> {
    const domain = this.find(nameOrLabel);
    // Loaded on first use: the X.509 library takes half a second to load, which a restart should not wait for.
    const { checkCsr } = await import('./csr-check.js');
    const checked = await checkCsr(pem, nameSetOf(domain.record));
    // Read after the check's await: the domain may have changed meanwhile.
    if (this.domains.get(domain.record.name) !== domain) throw new OutpostError('ERR_NOT_FOUND', `no domain ${domain.record.name}`);
    const served = domain.material === undefined ? undefined : certificateSpki(domain.material.cert_pem);
    const { record, order } = acceptCsr(domain.record, checked, this.deps.clock.now(), served);
    if (record === domain.record) return domainView(record);
    await this.update(domain, record);
    this.deps.log.info(
      `${record.name}: its host sent a CSR for a ${checked.keyType} key${order ? '; a certificate is ordered for it' : ', the key of the certificate served'}`,
    );
    if (!order) return domainView(domain.record);
    if (record.status === 'issued') return this.renewNow(record.name, 'renewed');
    if (record.status === 'error') await this.update(domain, retry(domain.record));
    const view = domainView(domain.record);
    this.plan(domain);
    return view;
  }

  async remove(nameOrLabel: string): Promise<void> {
    const domain = this.find(nameOrLabel);
    const { name } = domain.record;
    // The token dies with the replica entry, before anything slower happens.
    this.domains.delete(name);
    this.wakeups.forget(name);
    this.deps.publish({ type: 'removed', name });
    await this.deps.store.remove(name);
    this.deps.log.info(`removed ${name}`);
    await this.deps.retire?.(name, domain.record.token, 'removed');
    for (const recordName of addressNames(domain.record))
      this.deps.issuer
        .removeRecord(recordName)
        .catch((error: unknown) => this.deps.log.warn(`the record of ${recordName} could not be removed: ${String(error)}`));
  }

  async rotate(nameOrLabel: string): Promise<DomainView> {
    const domain = this.find(nameOrLabel);
    const retired = domain.record.token;
    domain.record = rotateToken(domain.record);
    await this.save(domain);
    this.deps.log.info(`rotated the token of ${domain.record.name}`);
    await this.deps.retire?.(domain.record.name, retired, 'rotated');
    return domainView(domain.record);
  }

  /**
   * The operator's retry: a domain in error starts again now rather than at its backoff time. Its
   * failure count stays, so a failure after it waits as long as the next backoff would have.
   */
  async retryNow(nameOrLabel: string): Promise<DomainView> {
    const domain = this.find(nameOrLabel);
    const { name, status } = domain.record;
    if (status !== 'error') throw new OutpostError('ERR_CONFLICT', `${name} is ${status}: only a domain in error can be retried`);
    await this.update(domain, retry(domain.record));
    this.deps.log.info(`retrying ${name} now, as the operator asked`);
    const retried = domainView(domain.record);
    this.plan(domain);
    return retried;
  }

  /**
   * The operator's renewal (operator-actions.ts): an issued domain is renewed now, the certificate it
   * has served until the new one arrives. `before` runs once the domain is found issued (a revocation,
   * an order dropped for a re-key); `verb` words the refusal of any other state.
   */
  async renewNow(nameOrLabel: string, verb: string, before: (domain: StoredDomain) => Promise<void> = () => Promise.resolve()): Promise<DomainView> {
    const domain = this.find(nameOrLabel);
    const { name, status } = domain.record;
    if (status !== 'issued') throw new OutpostError('ERR_CONFLICT', `${name} is ${status}: only an issued domain can be ${verb}`);
    await before(domain);
    if (this.domains.get(name) !== domain || domain.record.status !== 'issued') return domainView(domain.record);
    await this.update(domain, renewalDueNow(domain.record, this.deps.clock.now()));
    const view = domainView(domain.record);
    this.enqueue(name);
    return view;
  }

  recordFetch(name: string, from: string, at: number): void {
    const domain = this.domains.get(name);
    if (domain === undefined) return;
    domain.record = { ...domain.record, last_fetch: { at: isoTime(at), from } };
    this.fetchedSinceFlush.add(name);
    this.armFetchFlush();
  }

  /**
   * Writes the fetched domains `fetchFlushMs` after the first fetch since the last flush: one timer
   * while fetches come in, none while nothing is fetched. A write that fails is logged (a rejection
   * nobody handles would end the actor's thread) and tried again at the next flush.
   */
  private armFetchFlush(): void {
    if (this.cancelFetchFlush !== undefined || this.stopped) return;
    this.cancelFetchFlush = this.deps.clock.after(fetchFlushMs, () => {
      this.cancelFetchFlush = undefined;
      this.flushFetches().catch((error: unknown) => {
        this.deps.log.error(
          `the last fetch times could not be written, tried again in ${fetchFlushMs / 1000} s: ${error instanceof Error ? error.message : String(error)}`,
        );
        this.armFetchFlush();
      });
    });
  }

  /** Plans the renewals `resume` left out and writes the records it changed; stops with the book. */
  private async bringUpToDate(domains: readonly StoredDomain[]): Promise<void> {
    for (const domain of domains) {
      if (this.stopped) return;
      if (this.domains.get(domain.record.name) !== domain) continue;
      domain.record = (await renewalPlan()).withRenewalPlanned(domain.record, domain.material);
      // Removed while the planner loaded: its file must not come back.
      if (this.domains.get(domain.record.name) !== domain) continue;
      this.wakeups.track(domain.record);
      try {
        await this.deps.store.write(domain);
      } catch (error) {
        this.deps.log.error(`${domain.record.name} could not be written after the restart: ${String(error)}`);
      }
    }
  }

  /** Stops starting work and writes what is only in memory. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.cancelFetchFlush?.();
    this.cancelFetchFlush = undefined;
    this.wakeups.stop();
    await this.updating;
    await this.flushFetches();
    await this.deps.store.flush();
  }

  private find(nameOrLabel: string): StoredDomain {
    const { name } = parseDomainName(nameOrLabel, this.baseDomain);
    const domain = this.domains.get(name);
    if (domain === undefined) throw new OutpostError('ERR_NOT_FOUND', `no domain ${name}`);
    return domain;
  }

  /**
   * Writes the domain's file, then tells the fronts. A domain removed meanwhile (by a call that ran
   * while its caller awaited) is not written: its file, and its token with it, would come back at
   * the next restart. The check is enough: writes and the removal's unlink run in call order (store.ts).
   */
  private async save(domain: StoredDomain): Promise<void> {
    if (this.domains.get(domain.record.name) !== domain) return;
    await this.deps.store.write(domain);
    if (this.domains.get(domain.record.name) === domain) this.deps.publish(domainChange(domain));
  }

  /** Replaces the record (logic.ts made the next one) and saves it. */
  private async update(domain: StoredDomain, record: DomainRecord): Promise<void> {
    domain.record = record;
    await this.save(domain);
  }

  /** Queues the domain's order when it waits for one, and schedules its next timed step (renewals.ts). */
  private plan(domain: StoredDomain): void {
    const {
      name,
      status,
      retry: { waiting_for },
    } = domain.record;
    if (status === 'pending' && waiting_for !== 'budget' && waiting_for !== 'issuance') this.enqueue(name);
    this.wakeups.track(domain.record);
  }

  /** The domain's timed step came: its retry, its CA budget slot, or its renewal. */
  private async wake(name: string): Promise<void> {
    const domain = this.domains.get(name);
    if (domain === undefined || this.stopped) return;
    const now = this.deps.clock.now();
    const noticeAt = expiryNoticeAt(domain.record.issued_at, domain.record.expires_at, domain.record.renewal.expiry_notice_for);
    if (noticeAt !== undefined && noticeAt <= now) await this.sendExpiryNotice(domain);
    const {
      status,
      retry: { next_attempt_at },
    } = domain.record;
    // Woken for the notice alone: the retry keeps its time.
    if (status === 'error' && next_attempt_at !== null && Date.parse(next_attempt_at) > now) return;
    if (domain.record.status === 'error') await this.update(domain, retry(domain.record));
    if (domain.record.status === 'issued' && !renewalDue(domain.record, this.deps.clock.now())) await this.checkRenewalInfo(domain);
    else this.enqueue(name);
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

  /**
   * Orders a certificate: a new one (pending, once the CA budget has a slot) or a renewal (issued; the
   * old material is served until the new arrives). A failure leaves the domain in error with its
   * reason, its material kept, and a retry planned.
   */
  private async order(name: string): Promise<void> {
    const domain = this.domains.get(name);
    if (domain === undefined || (domain.record.status !== 'pending' && domain.record.status !== 'issued')) return;
    const csr = csrForOrder(domain.record, this.deps.reuseCsr === true);
    if (csr === 'wait') {
      await this.waitForCsr(domain);
      return;
    }
    const kind = certificateKind(domain.record);
    const reservation = this.deps.budget.reserve(name, kind, this.budgetWaitersBefore(domain.record));
    if (!reservation.granted) {
      const { slotAt, reason } = reservation;
      // A renewal held by the CA's limits is put off: the certificate served stays valid meanwhile.
      await this.update(domain, domain.record.status === 'pending' ? waitForBudget(domain.record, slotAt) : deferRenewal(domain.record, slotAt));
      this.deps.log.info(`${name} waits for a slot in the CA budget, at ${isoTime(slotAt)}${reason === undefined ? '' : `: ${reason}`}`);
      this.plan(domain);
      return;
    }
    // A retry of a failed renewal is a renewal too: the domain has a certificate.
    const renewing = kind === 'renewal';
    await this.update(domain, startOrder(domain.record));
    this.wakeups.forget(name);
    this.deps.log.info(`${renewing ? 'renewing the certificate' : 'issuing a certificate'} for ${name}`);
    let issuedRecord: DomainRecord;
    try {
      if (needsPublishing(domain.record)) {
        const { target, record_type } = domain.record;
        for (const recordName of addressNames(domain.record)) await this.deps.issuer.publishRecord(recordName, target, record_type);
        domain.record = { ...domain.record, published: { target, record_type } };
      }
      const replaces = replacesOf(domain.record);
      const ordered = certificateNames(domain.record);
      const issued = await this.deps.issuer.issue(name, {
        ...(ordered.length === 1 ? {} : { names: ordered.slice(1) }),
        ca: this.caOf(domain.record),
        ...(replaces === undefined ? {} : { replaces }),
        ...(domain.record.profile === null ? {} : { profile: domain.record.profile }),
        ...csr,
      });
      // The CA issued it: it counts whatever happened to the domain meanwhile.
      await this.deps.budget.commit(name);
      if (this.domains.get(name) !== domain) return;
      const plan = await renewalPlan();
      // Read here, inside the order: a certificate from the CA that cannot be read fails the order.
      // The record is read after the awaits: a target changed meanwhile must not be written over.
      const issuedBy = issued.ca === undefined ? undefined : { directory_url: issued.ca.directoryUrl, account_url: issued.ca.accountUrl };
      issuedRecord = markCsrUsed(
        {
          ...markIssued(domain.record, { ...plan.plannedCertificate(issued), ...(issuedBy === undefined ? {} : { issuedBy }) }),
          issued_names: ordered.length === 1 ? null : ordered,
        },
        csr.csr,
      );
      // A domain marked own_key while its order ran keeps no key of certhub's making.
      domain.material = domain.record.own_key ? { ...issued.material, key_pem: '' } : issued.material;
      if (issued.ca !== undefined) this.noteAccount(issued.ca.directoryUrl, issued.ca.accountUrl);
    } catch (error) {
      this.deps.budget.release(name);
      if (this.domains.get(name) !== domain) return;
      const reason = error instanceof Error ? error.message : String(error);
      if (error instanceof OutpostError && error.code === 'ERR_ACTOR_UNAVAILABLE') {
        // The ACME or DNS thread ended under the order (a crash, which the supervisor restarts): not
        // the domain's failure, so no backoff and no failure notice. The order starts again at once,
        // resumed from the order journal, and waits for the thread to be back.
        await this.update(domain, resumeAfterRestart(domain.record));
        this.deps.log.warn(`the order for ${name} was cut (${reason}); it starts again`);
        this.plan(domain);
        return;
      }
      if (error instanceof OutpostError && error.code === 'ERR_ACME_PROCESSING') {
        // The CA has the order and is issuing it: not the domain's failure. Resumed when the CA asked.
        const at = this.deps.clock.now() + (retryAfterOf(error) ?? 0);
        await this.update(domain, awaitIssuance(domain.record, reason, at));
        this.deps.log.warn(`${name} waits for the CA to issue its finalized order; resumed at ${isoTime(at)}`);
        this.plan(domain);
        return;
      }
      const now = this.deps.clock.now();
      const fallback = this.deps.fallback ?? { cas: [], fallbackAfter: 3 };
      const triedCa = this.caOf(domain.record);
      const problemType = error instanceof OutpostError ? error.problemType : undefined;
      const step = caAfterFailure(domain.record, { problemType, retryAfterMs: retryAfterOf(error) }, now, fallback);
      const next: NextAttempt = step.atOnce
        ? { at: now, reason: 'backoff' }
        : nextAttempt(domain.record.retry.failures + 1, now, retryAfterOf(error), this.deps.backoff);
      await this.update(domain, markFailed(domain.record, reason, next, step));
      const at = fallback.cas.length > 1 ? ` at ${fallback.cas[triedCa] ?? ''}` : '';
      this.deps.log.error(
        `${renewing ? 'renewing' : 'issuing'} ${name} failed${at} (attempt ${domain.record.retry.failures}${problemType === undefined ? '' : `, ${problemType}`}): ${reason}; next attempt at ${isoTime(next.at)}${next.reason === 'retry_after' ? ', as the refusal asked' : ''}`,
      );
      if (step.moved !== undefined) {
        const why =
          step.moved === 'refusal'
            ? `a refusal that will not pass soon (${problemType ?? 'no problem type'})`
            : `${fallback.fallbackAfter} failed attempts in a row`;
        this.deps.log.warn(`${name}: after ${why} at ${fallback.cas[triedCa] ?? ''}, the next attempt goes to ${fallback.cas[step.ca] ?? ''}`);
        this.notify(domain, 'ca_fallback', `after ${why} at ${fallback.cas[triedCa] ?? ''}`, fallback.cas[step.ca] ?? null);
      }
      if (step.atOnce) {
        // The next CA has not been tried yet: nothing to wait for (the failure notice below still goes out).
        this.notify(domain, renewing ? 'renewal_failed' : 'issuance_failed', reason);
        await this.update(domain, retry(domain.record));
        this.enqueue(name);
        return;
      }
      this.notify(domain, renewing ? 'renewal_failed' : 'issuance_failed', reason);
      this.plan(domain);
      return;
    }
    await this.keepIssued(domain, issuedRecord);
    // A CSR that came in while the order ran asks for a certificate of its own.
    if (this.domains.get(name) === domain && csrAwaitsOrder(domain.record)) await this.renewNow(name, 'renewed');
  }

  /** An own_key domain has no CSR to order with: a new one waits for its first, a due renewal asks its host for the next. */
  private async waitForCsr(domain: StoredDomain): Promise<void> {
    const { name, status, csr_wanted } = domain.record;
    if (status !== 'issued') {
      this.deps.log.info(`${name} waits for its host's CSR (certhub-agent fetch --own-key sends it)`);
      return;
    }
    await this.update(domain, awaitCsr(domain.record, this.deps.clock.now()));
    if (!csr_wanted) this.deps.log.info(`the renewal of ${name} waits for its host's next CSR (acme.reuse_csr is off); its certificate is served meanwhile`);
    this.plan(domain);
  }

  /**
   * The certificate is issued: from here on nothing is the order's failure, since the lifecycle has
   * no way from issued to error. A write that fails now is reported as a write, and the renewal is
   * planned all the same (test/cert/unit/cert-book-write-failures.test.ts).
   */
  private async keepIssued(domain: StoredDomain, record: DomainRecord): Promise<void> {
    const { name } = record;
    try {
      await this.update(domain, record);
    } catch (error) {
      // The certificate is valid and held here; the domain's next change writes it with its record.
      this.deps.log.error(
        `issued ${name}, but its file could not be written (${String(error)}); it is kept in memory and written with the domain's next change`,
      );
      this.plan(domain);
      return;
    }
    this.deps.log.info(`issued ${name}, valid until ${domain.record.expires_at ?? ''}, renewal due at ${domain.record.renewal.due_at ?? ''}`);
    this.notify(domain, 'issued', null, domain.record.issued_by?.directory_url ?? null);
    this.plan(domain);
    if (needsPublishing(domain.record)) this.republish(domain);
    try {
      await this.checkRenewalInfo(domain);
    } catch (error) {
      this.deps.log.error(`the renewal information of ${name} could not be written: ${String(error)}`);
    }
  }

  private async sendExpiryNotice(domain: StoredDomain): Promise<void> {
    this.deps.log.warn(`the certificate of ${domain.record.name} expires soon (at ${domain.record.expires_at ?? ''}) and is not renewed yet`);
    this.notify(domain, 'expires_soon', null);
    await this.update(domain, markExpiryNoticeSent(domain.record));
    this.wakeups.track(domain.record);
  }

  private notify(domain: StoredDomain, event: DomainNotice['event'], reason: string | null, ca: string | null = null): void {
    const { name, expires_at, retry } = domain.record;
    const failure = event === 'issuance_failed' || event === 'renewal_failed';
    (this.deps.notify ?? noNotices)({
      event,
      domain: name,
      reason,
      attempt: failure ? retry.failures : null,
      next_attempt_at: failure ? retry.next_attempt_at : null,
      expires_at,
      ca,
      host: null,
      at: isoTime(this.deps.clock.now()),
    });
  }

  /** Plans the renewal of the domain's certificate by the CA's renewal information, when it offers it. */
  private async checkRenewalInfo(domain: StoredDomain): Promise<void> {
    const asked = domain.record;
    const record = await askRenewalInfo(asked, this.deps.issuer, this.deps.clock.now(), this.deps.log);
    // Only while the domain still holds the certificate asked about.
    if (this.domains.get(asked.name) !== domain || domain.record.renewal.cert_id !== asked.renewal.cert_id) return;
    if (record !== asked) await this.update(domain, { ...domain.record, renewal: record.renewal });
    this.plan(domain);
  }

  /** The index in acme.cas of the CA the record's next attempt goes to. */
  private caOf(record: DomainRecord): number {
    const count = this.deps.fallback?.cas.length ?? 1;
    return Math.min(record.retry.ca, Math.max(count - 1, 0));
  }

  /** A certificate came from `accountUrl` at `directoryUrl`: a different account there than before makes every domain's ARI state suspect. */
  private noteAccount(directoryUrl: string, accountUrl: string): void {
    const before = this.accountSeen.get(directoryUrl);
    this.accountSeen.set(directoryUrl, accountUrl);
    if (before !== undefined && before !== accountUrl) {
      this.deps.log.warn(`the account at ${directoryUrl} is ${accountUrl} now, no more ${before}`);
      void this.settleAriState();
    }
  }

  /** How extra names are read (name-set.ts). */
  private get nameRules() {
    return { baseDomain: this.baseDomain, allowApex: this.deps.allowApex === true };
  }

  /** Every domain's record, for the overlap check of names. */
  private records(): Iterable<DomainRecord> {
    return [...this.domains.values()].map((domain) => domain.record);
  }

  /** A managed name's current target, for the CNAME loop check. */
  private readonly targetOf = (name: string): Target | undefined => this.domains.get(name)?.record;

  /** How many domains wait for the CA budget ahead of this one (added before it). */
  private budgetWaitersBefore(record: DomainRecord): number {
    let ahead = 0;
    for (const { record: other } of this.domains.values()) {
      if (other.retry.waiting_for === 'budget' && other.status === 'pending' && other.created_at < record.created_at) ahead++;
    }
    return ahead;
  }

  private republish(domain: StoredDomain): void {
    const { name, target, record_type } = domain.record;
    const publishAll = async () => {
      for (const recordName of addressNames(domain.record)) await this.deps.issuer.publishRecord(recordName, target, record_type);
    };
    publishAll().then(
      async () => {
        if (this.domains.get(name) !== domain) return;
        domain.record = { ...domain.record, published: { target, record_type } };
        // Caught here, not left to the promise: a rejection nobody handles would end the actor's thread.
        try {
          await this.save(domain);
        } catch (error) {
          this.deps.log.error(
            `the record of ${name} points to ${target}, but the domain's file could not be written (${String(error)}); it is written with the domain's next change`,
          );
        }
      },
      (error: unknown) => this.deps.log.error(`the record of ${name} could not be changed to ${target}: ${String(error)}`),
    );
  }

  /** Writes the domains fetched since the last flush; one whose write fails waits for the next. */
  private async flushFetches(): Promise<void> {
    const names = [...this.fetchedSinceFlush];
    this.fetchedSinceFlush.clear();
    const failures: string[] = [];
    for (const name of names) {
      const domain = this.domains.get(name);
      if (domain === undefined) continue;
      try {
        await this.save(domain);
      } catch (error) {
        this.fetchedSinceFlush.add(name);
        failures.push(`${name}: ${String(error)}`);
      }
    }
    if (failures.length > 0) throw new Error(failures.join('; '));
  }
}

/** The CA's Retry-After carried by an order's failure (acme/errors.ts), if any. */
/** The Retry-After a refusal carried (rebuilt from the wire when it came from the acme or dns actor). */
function retryAfterOf(error: unknown): number | undefined {
  return error instanceof OutpostError ? error.retryAfterMs : undefined;
}
