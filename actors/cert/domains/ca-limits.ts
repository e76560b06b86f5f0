// Two more of the CA's limits, counted here before the CA has to refuse, beside the per-domain budget
// (budget.ts): new orders per account in a window (Let's Encrypt: 300 per 3 hours) and duplicate
// certificates, for one exact set of names, in a window (Let's Encrypt: 5 per 7 days). Every order
// certhub starts counts against the first (an attempt that resumes an order left open counts too: the
// count errs high, never low); every certificate that arrives counts against the second, renewals
// included, so a raised budget, a renew-now or a re-key loop cannot run into the CA's refusal. The
// counts are kept in the ca-limits.json document, written at each order and each certificate.
import type { Clock } from '../../../src/actor/clock.js';
import type { Logger } from '../../../src/log/record.js';
import type { Documents } from '../store/documents.js';
import type { BudgetGate } from './budget.js';
import type { CaLimitSettings } from './protocol.js';

export type { CaLimitSettings };

/** Let's Encrypt's: 300 new orders per account per 3 hours; 5 certificates per exact set of names per 7 days. */
export const letsEncryptLimits: CaLimitSettings = { orders: 300, ordersWindowMs: 3 * 3_600_000, duplicates: 5, duplicatesWindowMs: 7 * 86_400_000 };

export type LimitCheck = { ok: true } | { ok: false; at: number; reason: string };

export class CaLimits {
  private orders: number[];
  private readonly certificates: Map<string, number[]>;

  constructor(
    private readonly settings: CaLimitSettings,
    private readonly clock: Clock,
    ledger: CaLimitsLedger = { orders: [], certificates: {} },
  ) {
    this.orders = [...ledger.orders].sort((a, b) => a - b);
    this.certificates = new Map(Object.entries(ledger.certificates).map(([name, times]) => [name, [...times].sort((a, b) => a - b)]));
  }

  /** Whether an order for `name` may start now; when not, the instant it may and which limit holds it. */
  check(name: string): LimitCheck {
    this.prune();
    const now = this.clock.now();
    const { orders, ordersWindowMs, duplicates, duplicatesWindowMs } = this.settings;
    const issued = this.certificates.get(name) ?? [];
    if (issued.length >= duplicates) {
      const at = (issued[issued.length - duplicates] ?? now) + duplicatesWindowMs;
      return {
        ok: false,
        at,
        reason: `${duplicates} certificates for ${name} in ${duplicatesWindowMs / 3_600_000} hours, the CA's limit of duplicate certificates`,
      };
    }
    if (this.orders.length >= orders) {
      const at = (this.orders[this.orders.length - orders] ?? now) + ordersWindowMs;
      return { ok: false, at, reason: `${orders} orders in ${ordersWindowMs / 3_600_000} hours, the CA's limit of new orders per account` };
    }
    return { ok: true };
  }

  orderStarted(): void {
    this.orders.push(this.clock.now());
  }

  certificateIssued(name: string): void {
    const times = this.certificates.get(name) ?? [];
    times.push(this.clock.now());
    this.certificates.set(name, times);
  }

  /** Orders counted in the window now. */
  get ordersUsed(): number {
    this.prune();
    return this.orders.length;
  }

  ledger(): CaLimitsLedger {
    this.prune();
    return { orders: [...this.orders], certificates: Object.fromEntries([...this.certificates].map(([name, times]) => [name, [...times]])) };
  }

  private prune(): void {
    const now = this.clock.now();
    this.orders = this.orders.filter((at) => at > now - this.settings.ordersWindowMs);
    for (const [name, times] of this.certificates) {
      const inside = times.filter((at) => at > now - this.settings.duplicatesWindowMs);
      if (inside.length === 0) this.certificates.delete(name);
      else this.certificates.set(name, inside);
    }
  }
}

/** What ca-limits.json keeps: epoch milliseconds of each order and of each name's certificates in their windows. */
export interface CaLimitsLedger {
  orders: number[];
  certificates: Record<string, number[]>;
}

export const caLimitsFileName = 'ca-limits.json';

/**
 * The book's gate with the CA's order and duplicate limits in front of `budget`: an order these
 * limits hold waits as one the budget holds (its domain pending until `slotAt`, or its renewal put
 * off), with the limit named in the log.
 */
export function withCaLimits(budget: BudgetGate, limits: CaLimits, documents: Documents, log: Logger): BudgetGate {
  let writes = Promise.resolve();
  const save = () => {
    writes = writes.then(() =>
      documents.write(caLimitsFileName, `${JSON.stringify(limits.ledger(), null, 2)}\n`).catch((error: unknown) => {
        log.error(`${caLimitsFileName} could not be written; the CA's order limits may undercount after a restart: ${String(error)}`);
      }),
    );
    return writes;
  };
  return {
    reserve(name, kind, position) {
      const check = limits.check(name);
      if (!check.ok) return { granted: false, slotAt: check.at, reason: check.reason };
      const reservation = budget.reserve(name, kind, position);
      if (reservation.granted) {
        limits.orderStarted();
        void save();
      }
      return reservation;
    },
    async commit(name) {
      limits.certificateIssued(name);
      await Promise.all([budget.commit(name), save()]);
    },
    release: (name) => budget.release(name),
  };
}

/** The counts a previous run left (a missing file: none; a damaged one is logged and counting starts empty). */
export async function readCaLimits(documents: Documents, log: Logger): Promise<CaLimitsLedger> {
  const path = documents.where(caLimitsFileName);
  try {
    const text = await documents.read(caLimitsFileName);
    if (text === undefined) return { orders: [], certificates: {} };
    const parsed = JSON.parse(text) as Partial<CaLimitsLedger>;
    const times = (value: unknown) => (Array.isArray(value) ? value.filter((at): at is number => typeof at === 'number') : []);
    const certificates: Record<string, number[]> = {};
    if (typeof parsed.certificates === 'object' && parsed.certificates !== null)
      for (const [name, value] of Object.entries(parsed.certificates)) certificates[name] = times(value);
    return { orders: times(parsed.orders), certificates };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') log.warn(`${path} is not usable (${String(error)}); counting the CA's order limits from empty`);
    return { orders: [], certificates: {} };
  }
}
