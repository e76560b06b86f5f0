// What the book asks before it starts an order: may this certificate be ordered now, or when is its
// slot in the CA budget (budget.ts)? With a CA, every new certificate is counted and budget.json is
// written before the certificate's material is stored, so a crash cannot undercount; in demo mode
// (no CA) nothing is counted.
import type { Logger } from '../../../src/log/record.js';
import { writeBudgetLedger } from './budget-ledger.js';
import type { CertificateBudget, CertificateKind, Reservation } from './budget.js';

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

/** The CA budget, kept in `<dataDir>/budget.json`. */
export function ledgerBudget(budget: CertificateBudget, dataDir: string, log: Logger): BudgetGate {
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
        writeBudgetLedger(dataDir, budget.ledger()).catch((error: unknown) => {
          // The certificate is kept all the same: losing it would cost another slot.
          log.error(`budget.json could not be written; the CA budget may undercount after a restart: ${String(error)}`);
        }),
      );
      return writes;
    },
    release: (name) => budget.release(name),
  };
}
