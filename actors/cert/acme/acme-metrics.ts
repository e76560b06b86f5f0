// The acme actor's figures for certhub's /metrics: orders by outcome and how long each took (from the
// issue() call to the certificate, DNS propagation and the CA's validation included), and whether
// the ACME account is open (what /readyz reads too).
import type { Registry } from 'prom-client';
import { promClient } from '../../../src/metrics/prom-client-parts.js';

/** Seconds: an order against a local CA takes a second or two, a real one with DNS propagation minutes. */
const orderBuckets = [1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800];

export type OrderOutcome = 'issued' | 'failed';

export interface AcmeFigures {
  orderDone(outcome: OrderOutcome, seconds: number): void;
  accountOpen(open: boolean): void;
}

export const noAcmeFigures: AcmeFigures = { orderDone: () => {}, accountOpen: () => {} };

export function registerAcmeMetrics(registry: Registry): AcmeFigures {
  const { Counter, Gauge, Histogram } = promClient();
  const registers = [registry];
  const orders = new Counter({
    name: 'outpost_acme_orders_total',
    help: 'ACME orders finished, by outcome (issued, failed).',
    labelNames: ['outcome'],
    registers,
  });
  const duration = new Histogram({
    name: 'outpost_acme_order_duration_seconds',
    help: 'Time from an order starting to its certificate or its failure, by outcome.',
    labelNames: ['outcome'],
    buckets: orderBuckets,
    registers,
  });
  const account = new Gauge({
    name: 'outpost_acme_account_ready',
    help: '1 once the ACME account is open at the CA, 0 before (the CA unreachable or refusing).',
    registers,
  });
  account.set(0);
  return {
    orderDone(outcome, seconds) {
      orders.inc({ outcome });
      duration.observe({ outcome }, seconds);
    },
    accountOpen: (open) => account.set(open ? 1 : 0),
  };
}
