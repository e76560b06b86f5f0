// The CA's certificate budget, respected before the CA has to refuse: Let's Encrypt issues at most 50
// new certificates per registered domain per 7 days (every subdomain of the base domain counts;
// renewals are exempt). An order for a new certificate takes a slot when it starts; the slot stays
// taken for a window from the moment the certificate arrives, and is given back if the order fails.
//
// The book asks the budget through a BudgetGate before it starts an order. With a CA, every new
// certificate is counted and budget.json is written before the certificate's material is stored, so
// a crash cannot undercount; in demo mode (no CA) nothing is counted. budget.json is written only
// when a new certificate arrives (at most `certificates` entries), so it costs nothing per change; it
// is kept apart from the domains because a removed domain's certificate still counts.
import type { Registry } from 'prom-client';
import type { Clock } from '../../../src/actor/clock.js';
import type { Logger } from '../../../src/log/record.js';
import { promClient } from '../../../src/metrics/prom-client-parts.js';
import type { Documents } from '../store/documents.js';

export interface BudgetSettings {
  /** New certificates per window. */
  certificates: number;
  windowMs: number;
}

export type CertificateKind = 'new' | 'renewal';

/** `reason`: the limit that holds the order, when it is not the budget of new certificates. */
export type Reservation = { granted: true } | { granted: false; slotAt: number; reason?: string };

export class CertificateBudget {
  /** When each counted new certificate arrived, oldest first. */
  private issued: number[];
  /** Names whose new-certificate order is in flight, each holding a slot. */
  private readonly reserved = new Set<string>();

  /** `ledger`: arrival instants of new certificates counted so far (from budget.json). */
  constructor(
    private readonly settings: BudgetSettings,
    private readonly clock: Clock,
    ledger: readonly number[] = [],
  ) {
    this.issued = [...ledger].sort((a, b) => a - b);
  }

  /** Slots taken now: certificates in the window plus orders in flight. */
  get used(): number {
    this.prune();
    return this.issued.length + this.reserved.size;
  }

  /** Asks for a slot for an order; a renewal needs none. Asking again for a name holding one is granted. */
  reserve(name: string, kind: CertificateKind): Reservation {
    if (kind === 'renewal' || this.reserved.has(name)) return { granted: true };
    if (this.used < this.settings.certificates) {
      this.reserved.add(name);
      return { granted: true };
    }
    return { granted: false, slotAt: this.slotAt(0) };
  }

  /** The new certificate for `name` arrived: its slot is used for a window from now. */
  commit(name: string): void {
    if (!this.reserved.delete(name)) return;
    this.issued.push(this.clock.now());
  }

  /** The order for `name` ended without a certificate (failed, or the domain was removed). */
  release(name: string): void {
    this.reserved.delete(name);
  }

  /** When the waiter at `position` (0: the next one) gets a slot, if no slot is given back before. */
  slotAt(position: number): number {
    const now = this.clock.now();
    const free = this.settings.certificates - this.used;
    if (position < free) return now;
    const turn = position - free;
    // Slots held by certificates free up as they leave the window; those held by orders in flight
    // will count from about now once their certificates arrive.
    const leaving = this.issued[turn];
    return leaving === undefined ? now + this.settings.windowMs : leaving + this.settings.windowMs;
  }

  /** The counted arrivals still in the window, oldest first: what budget.json keeps. */
  ledger(): number[] {
    this.prune();
    return [...this.issued];
  }

  private prune(): void {
    const horizon = this.clock.now() - this.settings.windowMs;
    const firstInside = this.issued.findIndex((at) => at > horizon);
    this.issued = firstInside === -1 ? [] : this.issued.slice(firstInside);
  }
}

export interface BudgetGate {
  /** A slot for an order; when refused, `position` says how many waiters are ahead of this one. */
  reserve(name: string, kind: CertificateKind, position: number): Reservation;
  /** The new certificate arrived: counted, and written to budget.json before this resolves. */
  commit(name: string): Promise<void>;
  /** The order ended without a certificate. */
  release(name: string): void;
}

/** Demo mode: no CA, nothing to count. */
export const unlimitedBudget: BudgetGate = {
  reserve: () => ({ granted: true }),
  commit: () => Promise.resolve(),
  release: () => {},
};

/**
 * The domains actor's CA budget: counted from the `budget.json` document (a damaged one is logged and
 * counting starts from empty), its gauges registered when `metrics` is given.
 */
export async function openLedgerBudget(settings: BudgetSettings, documents: Documents, clock: Clock, log: Logger, metrics?: Registry): Promise<BudgetGate> {
  const read = await readBudgetLedger(documents);
  if (read.problem !== undefined) log.warn(read.problem);
  const budget = new CertificateBudget(settings, clock, read.ledger);
  if (metrics !== undefined) registerBudgetMetrics(metrics, budget, settings.certificates);
  return ledgerBudget(budget, documents, log);
}

/** The CA budget, kept in the `budget.json` document. */
export function ledgerBudget(budget: CertificateBudget, documents: Documents, log: Logger): BudgetGate {
  // Writes run one after another, each with the ledger as it is when it runs, so an older ledger
  // never replaces a newer one.
  let writes = Promise.resolve();
  return {
    reserve(name, kind, position) {
      const reservation = budget.reserve(name, kind);
      return reservation.granted ? reservation : { granted: false, slotAt: budget.slotAt(position) };
    },
    commit(name) {
      budget.commit(name);
      writes = writes.then(() =>
        writeBudgetLedger(documents, budget.ledger()).catch((error: unknown) => {
          // The certificate is kept all the same: losing it would cost another slot.
          log.error(`budget.json could not be written; the CA budget may undercount after a restart: ${String(error)}`);
        }),
      );
      return writes;
    },
    release: (name) => budget.release(name),
  };
}

/** The budget.json document: when the new certificates still counted against the budget arrived. */
export const budgetFileName = 'budget.json';

export interface ReadLedger {
  ledger: number[];
  /** Why the file was not used, when it exists but is damaged (the budget then starts empty). */
  problem?: string;
}

export async function readBudgetLedger(documents: Documents): Promise<ReadLedger> {
  const path = documents.where(budgetFileName);
  let text: string | undefined;
  try {
    text = await documents.read(budgetFileName);
    if (text === undefined) return { ledger: [] };
  } catch (error) {
    return { ledger: [], problem: `${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)}); counting the CA budget from empty` };
  }
  try {
    const { new_certificates: entries } = JSON.parse(text) as { new_certificates?: unknown };
    if (!Array.isArray(entries)) throw new Error('new_certificates is not a list');
    const ledger = entries.map((entry) => (typeof entry === 'string' ? Date.parse(entry) : NaN));
    if (ledger.some(Number.isNaN)) throw new Error('new_certificates holds something other than times');
    return { ledger };
  } catch (error) {
    return { ledger: [], problem: `${path} is not usable (${(error as Error).message}); counting the CA budget from empty` };
  }
}

export function writeBudgetLedger(documents: Documents, ledger: readonly number[]): Promise<void> {
  const text = JSON.stringify({ new_certificates: ledger.map((at) => new Date(at).toISOString()) }, null, 2);
  return documents.write(budgetFileName, `${text}\n`);
}

/**
 * The budget as gauges for certhub's /metrics: the slots the CA allows per window, those taken now,
 * and when the next one frees up (now when one is free).
 */
export function registerBudgetMetrics(registry: Registry, budget: CertificateBudget, certificates: number): void {
  const { Gauge } = promClient();
  const registers = [registry];
  new Gauge({ name: 'outpost_cert_budget_certificates', help: 'New certificates the CA allows per window (the budget).', registers }).set(certificates);
  new Gauge({
    name: 'outpost_cert_budget_used',
    help: 'Budget slots taken now: new certificates in the window and new orders in flight.',
    registers,
    collect() {
      this.set(budget.used);
    },
  });
  new Gauge({
    name: 'outpost_cert_budget_next_slot_timestamp_seconds',
    help: 'When the next new certificate may start, in seconds since the Unix epoch (now when a slot is free).',
    registers,
    collect() {
      this.set(budget.slotAt(0) / 1000);
    },
  });
}
