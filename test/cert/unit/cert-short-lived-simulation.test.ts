// Thirty simulated days of 50 domains on an injected clock, for 6-day (Let's Encrypt's `shortlived`),
// 45-day and 47-day certificates, with a CA that fails one order in five at random: half refused with
// a Retry-After, half timing out after a while. What must hold at every step of the clock: no domain
// is served a certificate past its notAfter; a domain is renewed once per certificate (orders per
// lifetime stay at one plus the failures: no renewal loop); each renewal starts inside the CA's ARI
// window; an order refused with Retry-After is not tried again before that time.
import { X509Certificate } from 'node:crypto';
import test from 'ava';
import { ManualClock } from '../../../src/actor/clock.js';
import { OutpostError } from '../../../src/errors.js';
import type { IssuedMaterial, RenewalInfoAnswer, IssueOptions } from '../../../actors/cert/acme/protocol.js';
import { certErrors } from '../../../actors/cert/error-codes.js';
import { ariCertId } from '../../../actors/cert/renewal/ari.js';
import { readCertificateFacts } from '../../../actors/cert/renewal/certificate-facts.js';
import type { DomainStore } from '../../../actors/cert/domains/store.js';
import { certDataDir } from '../../helpers/cert-files.js';
import { baseDomain, day, FakeIssuer, hour, startBook } from '../helpers/domain-book.js';

const domains = 50;
const simulatedMs = 30 * day;
const failureShare = 0.2;
/** How far the clock moves between two looks at what is served. */
const stepMs = hour;
/** The book's scheduler looks at least this often (actors/cert/domains/renewals.ts). */
const schedulerMs = 2 * hour;
/** How long an order that times out keeps the CA busy before it fails. */
const timeoutMs = 30 * 60_000;

/** The CA double's ARI window: from half to 60% of the certificate's lifetime, re-asked every 6 hours. */
const windowStart = 0.5;
const windowEnd = 0.6;
const ariRecheckMs = 6 * hour;

/** A small seeded generator (mulberry32), so a failing run can be replayed from its seed. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

interface Attempt {
  name: string;
  at: number;
  outcome: 'issued' | 'refused' | 'timed out';
  retryAfterMs?: number;
  notBefore?: number;
  notAfter?: number;
}

/** A CA that fails a share of orders at random, answers ARI for what it issued, and keeps every attempt. */
class FlakyCa extends FakeIssuer {
  readonly attempts: Attempt[] = [];
  /** ARI windows by CertID. */
  private readonly windows = new Map<string, { start: number; end: number }>();
  /** Orders in progress that are not waiting on the simulated clock. */
  busy = 0;
  /** Names whose order is timing out: it waits on the simulated clock. */
  readonly stalled = new Set<string>();

  constructor(
    private readonly simulatedClock: ManualClock,
    lifetimeMs: number,
    private readonly random: () => number,
  ) {
    super(simulatedClock, lifetimeMs);
    this.renewalWindow = (certId: string): RenewalInfoAnswer => {
      const window = this.windows.get(certId);
      const nextCheckAt = this.simulatedClock.now() + ariRecheckMs;
      return window === undefined ? { ok: false, reason: 'unknown CertID', nextCheckAt } : { ok: true, window, explanationUrl: undefined, nextCheckAt };
    };
  }

  override async issue(name: string, options: IssueOptions = {}): Promise<IssuedMaterial> {
    const at = this.simulatedClock.now();
    const roll = this.random();
    if (roll < failureShare / 2) {
      const retryAfterMs = Math.ceil(hour + (roll / (failureShare / 2)) * 11 * hour);
      this.attempts.push({ name, at, outcome: 'refused', retryAfterMs });
      throw new OutpostError(certErrors.ERR_ACME_ORDER, 'rateLimited: too many new orders recently', { retryAfterMs });
    }
    if (roll < failureShare) {
      this.attempts.push({ name, at, outcome: 'timed out' });
      this.stalled.add(name);
      await this.simulatedClock.sleep(timeoutMs);
      this.stalled.delete(name);
      throw new Error('the CA did not answer the order within its deadline');
    }
    this.busy++;
    try {
      const issued = await super.issue(name, options);
      const { notBefore, notAfter } = issued;
      const facts = readCertificateFacts(issued.material.cert_pem);
      const lifetime = notAfter - notBefore;
      this.windows.set(ariCertId(facts), { start: notBefore + lifetime * windowStart, end: notBefore + lifetime * windowEnd });
      this.attempts.push({ name, at, outcome: 'issued', notBefore, notAfter });
      return issued;
    } finally {
      this.busy--;
    }
  }
}

/** Counts the store's writes in progress: the book's steps end with one. */
function watchWrites(store: DomainStore): () => number {
  let writing = 0;
  const write = store.write.bind(store);
  store.write = async (domain) => {
    writing++;
    try {
      await write(domain);
    } finally {
      writing--;
    }
  };
  return () => writing;
}

/**
 * Lets the book finish what the last clock step started: no order busy, no write in progress and no
 * domain issuing but those whose order waits on the clock, for a few turns of the loop in a row.
 */
async function quiet(ca: FlakyCa, writing: () => number, issuing: () => string[]): Promise<void> {
  for (let calm = 0; calm < 3; ) {
    await new Promise((resolve) => setImmediate(resolve));
    calm = ca.busy === 0 && writing() === 0 && issuing().every((name) => ca.stalled.has(name)) ? calm + 1 : 0;
  }
}

for (const lifetimeDays of [6, 45, 47]) {
  test(`30 days of ${lifetimeDays}-day certificates for ${domains} domains, one order in five failing: never served expired, renewed once per certificate, inside the ARI window`, async (t) => {
    const seed = Number(process.env.SIMULATION_SEED ?? 20261201 + lifetimeDays);
    t.log(`seed ${seed} (SIMULATION_SEED replays it)`);
    const start = Date.UTC(2027, 2, 15);
    const clock = new ManualClock(start);
    const lifetimeMs = lifetimeDays * day;
    const ca = new FlakyCa(clock, lifetimeMs, seeded(seed));
    const harness = await startBook(t, { dataDir: await certDataDir(t), clock, lifetimeMs, issuer: ca, maxDomains: domains });
    const writing = watchWrites(harness.store);
    const issuing = () => [...harness.replica.values()].filter(({ domain }) => domain.status === 'issuing').map(({ domain }) => domain.name);
    const labels = Array.from({ length: domains }, (_, index) => `host${index}`);
    for (const label of labels) await harness.book.add({ name: label, target: '203.0.113.5' });
    await quiet(ca, writing, issuing);

    const notAfterOf = new Map<string, number>();
    const servedNotAfter = (pem: string) => {
      let notAfter = notAfterOf.get(pem);
      if (notAfter === undefined) notAfterOf.set(pem, (notAfter = Date.parse(new X509Certificate(pem).validTo)));
      return notAfter;
    };
    let smallestMarginMs = Infinity;
    let servedExpired = 0;
    for (let elapsed = 0; elapsed < simulatedMs; elapsed += stepMs) {
      clock.advance(stepMs);
      await quiet(ca, writing, issuing);
      for (const label of labels) {
        const pem = harness.replica.get(`${label}.${baseDomain}`)?.material?.cert_pem;
        if (pem === undefined) continue;
        const margin = servedNotAfter(pem) - clock.now();
        smallestMarginMs = Math.min(smallestMarginMs, margin);
        if (margin <= 0) servedExpired++;
      }
    }
    t.is(servedExpired, 0, 'no domain was served a certificate past its notAfter');
    t.true(smallestMarginMs > 0);

    let renewals = 0;
    for (const label of labels) {
      const name = `${label}.${baseDomain}`;
      const attempts = ca.attempts.filter((attempt) => attempt.name === name);
      const issued = attempts.filter((attempt) => attempt.outcome === 'issued');
      t.true(issued.length >= 1, `${name} was issued`);
      for (let index = 1; index < issued.length; index++) {
        const previous = issued[index - 1]!;
        const lifetime = previous.notAfter! - previous.notBefore!;
        const windowOpens = previous.notBefore! + lifetime * windowStart;
        const firstTry = attempts.find((attempt) => attempt.at >= previous.at && attempt !== previous)!;
        // Once per certificate: no order for this domain between an issue and its ARI window.
        t.true(firstTry.at >= windowOpens, `${name}: renewal tried ${(windowOpens - firstTry.at) / hour} h before the ARI window opened`);
        // The first try falls inside the window (the scheduler looks every 2 hours).
        t.true(firstTry.at <= previous.notBefore! + lifetime * windowEnd + schedulerMs, `${name}: renewal first tried after the ARI window`);
        renewals++;
      }
      for (const [index, attempt] of attempts.entries()) {
        const next = attempts[index + 1];
        if (attempt.retryAfterMs === undefined || next === undefined) continue;
        t.true(
          next.at >= attempt.at + attempt.retryAfterMs,
          `${name}: tried again ${(attempt.at + attempt.retryAfterMs - next.at) / 60_000} min before the CA's Retry-After`,
        );
      }
    }
    const failures = ca.attempts.filter((attempt) => attempt.outcome !== 'issued').length;
    const orders = ca.attempts.length;
    t.is(orders, domains + renewals + failures, 'every order is a first issue, one renewal per certificate, or a retry after a failure');
    const perDomain = (count: number) => (count / domains).toFixed(2);
    const askedAri = ca.renewalInfoAsked.length;
    t.log(
      `per domain over 30 days: ${perDomain(orders)} orders (${perDomain(failures)} failed), ${perDomain(askedAri)} ARI requests; smallest margin to notAfter ${(smallestMarginMs / day).toFixed(2)} days`,
    );
  });
}
