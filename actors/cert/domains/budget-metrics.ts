// The certificate budget (budget.ts) as gauges for certhub's /metrics: the slots the CA allows per
// window, those taken now, and when the next one frees up (now when one is free).
import type { Registry } from 'prom-client';
import { promClient } from '../../../src/metrics/prom-client-parts.js';
import type { CertificateBudget } from './budget.js';

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
