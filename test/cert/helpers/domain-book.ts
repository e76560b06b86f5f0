// A DomainBook on a real store in a temporary data directory, driven by a ManualClock, with an issuer
// that makes real self-signed certificates of a chosen lifetime (no DNS, no CA) and can be told to
// fail or to hold an order. Tests wait for what the book publishes to the fronts.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ExecutionContext } from 'ava';
import type { ManualClock } from '../../../src/actor/clock.js';
import { loggerFrom } from '../../../src/log/record.js';
import type { CaAccountState, CaIdentity, IssuedMaterial, IssueOptions, RenewalInfoAnswer } from '../../../actors/cert/acme/protocol.js';
import type { FallbackSettings } from '../../../actors/cert/domains/ca-fallback.js';
import type { OfferedProfiles } from '../../../actors/cert/acme/profiles.js';
import { DomainBook } from '../../../actors/cert/domains/book.js';
import { unlimitedBudget, type BudgetGate } from '../../../actors/cert/domains/budget.js';
import { createDemoCertificate } from '../../../actors/cert/domains/demo-certificate.js';
import { defaultMaxDomains } from '../../../actors/cert/domains/limits.js';
import type { Issuer } from '../../../actors/cert/domains/issuer.js';
import type { DomainChange, DomainView } from '../../../actors/cert/domains/protocol.js';
import type { Notify } from '../../../actors/cert/domains/notices.js';
import type { Material } from '../../../actors/cert/acme/protocol.js';
import type { DomainRecord } from '../../../actors/cert/domains/record.js';
import { DomainStore } from '../../../actors/cert/domains/store.js';

export const hour = 3_600_000;
export const day = 24 * hour;

/** The issuer's knobs: what it makes, and what it does to the next orders. */
export class FakeIssuer implements Issuer {
  /** Names in the order their certificates were asked for. */
  readonly orders: string[] = [];
  /** Reasons (or errors) the next orders fail with, first first. */
  readonly failures: (string | Error)[] = [];
  /** What `replaces` each order carried (undefined: none). */
  readonly replaced: (string | undefined)[] = [];
  /** The CA's ARI answer for every certificate; null: the CA offers no ARI. */
  renewalWindow: ((certId: string) => RenewalInfoAnswer) | null = null;
  /** CertIDs whose renewal information was asked for. */
  readonly renewalInfoAsked: string[] = [];
  /** Certificates revoked, with the reason given. */
  readonly revoked: { certPem: string; reason: string }[] = [];
  /** Names whose open order was dropped. */
  readonly forgotten: string[] = [];
  /** The CAs of acme.cas and the account certhub holds at each; an order at index i is issued by cas[i]. */
  cas: CaIdentity[] = [{ directoryUrl: 'https://ca-1.test/directory', accountUrl: 'https://ca-1.test/account/1' }];
  /** The index of the CA each order went to. */
  readonly casOrdered: number[] = [];
  private held: Promise<void> | undefined;
  private release: (() => void) | undefined;

  constructor(
    private readonly clock: ManualClock,
    public lifetimeMs: number,
  ) {}

  publishRecord(): Promise<void> {
    return Promise.resolve();
  }

  removeRecord(): Promise<void> {
    return Promise.resolve();
  }

  claimRecord(): Promise<void> {
    return Promise.resolve();
  }

  renewalInfo(certId: string, ca: CaIdentity): Promise<RenewalInfoAnswer | null | 'unknown'> {
    this.renewalInfoAsked.push(certId);
    if (!this.cas.some((held) => held.directoryUrl === ca.directoryUrl && held.accountUrl === ca.accountUrl)) return Promise.resolve('unknown');
    return Promise.resolve(this.renewalWindow === null ? null : this.renewalWindow(certId));
  }

  accounts(): Promise<CaAccountState[]> {
    return Promise.resolve(this.cas.map((ca) => ({ ...ca })));
  }

  /** The profiles the CA lists (null: none). */
  offered: OfferedProfiles | null = null;
  /** What `profile` each order carried (undefined: none). */
  readonly profilesOrdered: (string | undefined)[] = [];

  profiles(): Promise<OfferedProfiles | null> {
    return Promise.resolve(this.offered);
  }

  revoke(certPem: string, reason: string): Promise<string> {
    this.revoked.push({ certPem, reason });
    return Promise.resolve(`revoked (reason ${reason})`);
  }

  forgetOrder(name: string): Promise<void> {
    this.forgotten.push(name);
    return Promise.resolve();
  }

  async issue(name: string, options: IssueOptions = {}): Promise<IssuedMaterial> {
    const index = options.ca ?? 0;
    this.orders.push(name);
    this.profilesOrdered.push(options.profile);
    this.casOrdered.push(index);
    const ca = this.cas[index] ?? this.cas[0];
    const known = options.replaces !== undefined && options.replaces.ca.directoryUrl === ca?.directoryUrl && options.replaces.ca.accountUrl === ca.accountUrl;
    this.replaced.push(known ? options.replaces?.certId : undefined);
    await this.held;
    const failure = this.failures.shift();
    if (failure !== undefined) throw typeof failure === 'string' ? new Error(failure) : failure;
    const { notBefore, notAfter, ...material } = await createDemoCertificate(name, { now: this.clock.now(), lifetimeMs: this.lifetimeMs });
    return { material, notBefore, notAfter, ...(ca === undefined ? {} : { ca: { ...ca } }) };
  }

  /** Orders wait until `resume` is called. */
  hold(): void {
    this.held = new Promise((resolve) => (this.release = resolve));
  }

  resume(): void {
    this.release?.();
    this.held = undefined;
  }
}

export interface BookHarness {
  book: DomainBook;
  clock: ManualClock;
  issuer: FakeIssuer;
  dataDir: string;
  /** The book's store, for tests that watch its writes. */
  store: DomainStore;
  /** The latest replica message for each name. */
  replica: Map<string, { domain: DomainView; material: Material | null }>;
  /** Resolves once the book has published a view of `label` that satisfies `accept`, and finished that step. */
  until(label: string, accept: (view: DomainView) => boolean): Promise<DomainView>;
  /** Like until, but only views published from now on count (call it before the step it waits for). */
  nextPublished(label: string, accept: (view: DomainView) => boolean): Promise<DomainView>;
  /** The record as stored in the domain's file. */
  storedRecord(label: string): Promise<DomainRecord>;
  /** Every line the book logged (`level: message`), in order; each is also the test's log. */
  logged: string[];
}

export const baseDomain = 'example.com';

export async function startBook(
  t: ExecutionContext,
  options: {
    dataDir: string;
    clock: ManualClock;
    lifetimeMs: number;
    budget?: BudgetGate;
    notify?: Notify;
    scheduled?: boolean;
    maxDomains?: number;
    /** An issuer of the test's own (a FakeIssuer that decides each order itself); a plain one otherwise. */
    issuer?: FakeIssuer;
    /** acme.cas and acme.fallback_after as the book reads them; one CA by default. */
    fallback?: FallbackSettings;
  },
): Promise<BookHarness> {
  const { dataDir, clock } = options;
  const { store, loaded } = await DomainStore.open(dataDir);
  const issuer = options.issuer ?? new FakeIssuer(clock, options.lifetimeMs);
  const replica = new Map<string, { domain: DomainView; material: Material | null }>();
  const waiters = new Set<() => void>();
  const logged: string[] = [];
  const publish = (message: DomainChange) => {
    if (message.type === 'domain') replica.set(message.domain.name, { domain: message.domain, material: message.material });
    else replica.delete(message.name);
    for (const check of waiters) check();
  };
  const book = new DomainBook(baseDomain, loaded.domains, {
    store,
    issuer,
    clock,
    log: loggerFrom('domains', (record) => {
      logged.push(`${record.level}: ${record.message}`);
      t.log(`${record.level}: ${record.message}`);
    }),
    publish,
    budget: options.budget ?? unlimitedBudget,
    parallelOrders: 4,
    maxDomains: options.maxDomains ?? defaultMaxDomains,
    ...(options.notify === undefined ? {} : { notify: options.notify }),
    ...(options.scheduled === undefined ? {} : { scheduled: options.scheduled }),
    ...(options.fallback === undefined ? {} : { fallback: options.fallback }),
  });
  t.teardown(() => book.stop());
  await book.resume();
  const watch = (label: string, accept: (view: DomainView) => boolean, now: boolean) =>
    new Promise<DomainView>((resolve) => {
      const check = () => {
        const view = replica.get(`${label}.${baseDomain}`)?.domain;
        if (view === undefined || !accept(view)) return;
        waiters.delete(check);
        // After the book's step that published it has finished (its wake-up planned, its order queued).
        setImmediate(() => resolve(view));
      };
      waiters.add(check);
      if (now) check();
    });
  const until = (label: string, accept: (view: DomainView) => boolean) => watch(label, accept, true);
  const nextPublished = (label: string, accept: (view: DomainView) => boolean) => watch(label, accept, false);
  const storedRecord = async (label: string) => {
    const text = await readFile(join(dataDir, 'domains', `${label}.${baseDomain}.json`), 'utf8');
    return (JSON.parse(text) as { record: DomainRecord }).record;
  };
  return { book, clock, issuer, dataDir, store, replica, until, nextPublished, storedRecord, logged };
}
