// The CA's certificate budget, respected before the CA has to refuse: Let's Encrypt issues at most 50
// new certificates per registered domain per 7 days (every subdomain of the base domain counts;
// renewals are exempt). An order for a new certificate takes a slot when it starts; the slot stays
// taken for a window from the moment the certificate arrives, and is given back if the order fails.
import type { Clock } from '../../../src/actor/clock.js';

export interface BudgetSettings {
  /** New certificates per window. */
  certificates: number;
  windowMs: number;
}

export type CertificateKind = 'new' | 'renewal';

export type Reservation = { granted: true } | { granted: false; slotAt: number };

export interface Admission {
  /** May start their orders now, in the order given. */
  started: string[];
  /** Wait in pending until their slot opens (epoch ms), in the order given. */
  waiting: { name: string; slotAt: number }[];
}

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

  /**
   * Admits pending names in order (oldest first): as many as there are slots start, the others get the
   * instant their turn comes, each a later slot than the one before.
   */
  admit(pending: readonly { name: string; kind: CertificateKind }[]): Admission {
    const admission: Admission = { started: [], waiting: [] };
    for (const { name, kind } of pending) {
      const reservation = this.reserve(name, kind);
      if (reservation.granted) admission.started.push(name);
      else admission.waiting.push({ name, slotAt: this.slotAt(admission.waiting.length) });
    }
    return admission;
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
