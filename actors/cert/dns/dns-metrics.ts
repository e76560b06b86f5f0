// The dns actor's figures for certhub's /metrics: each call to a DNS provider (Cloudflare, PowerDNS),
// by provider, operation and outcome, and how long it took.
import type { Registry } from 'prom-client';
import { promClient } from '../../../src/metrics/prom-client-parts.js';
import { latencyBuckets } from '../../../src/metrics/histogram.js';

export type DnsOperation = 'set_address' | 'remove_address' | 'claim_address' | 'add_txt' | 'remove_txt';

/** Runs one provider call, counting it. */
export type TimedCall = <Result>(provider: string, operation: DnsOperation, call: () => Promise<Result>) => Promise<Result>;

export const untimed: TimedCall = (_provider, _operation, call) => call();

export function registerDnsMetrics(registry: Registry): TimedCall {
  const { Counter, Histogram } = promClient();
  const registers = [registry];
  const calls = new Counter({
    name: 'outpost_dns_provider_calls_total',
    help: 'Calls to a DNS provider, by provider, operation and outcome (ok, error).',
    labelNames: ['provider', 'operation', 'outcome'],
    registers,
  });
  const duration = new Histogram({
    name: 'outpost_dns_provider_call_duration_seconds',
    help: 'Time a DNS provider call took, by provider and operation.',
    labelNames: ['provider', 'operation'],
    buckets: [...latencyBuckets, 30, 60],
    registers,
  });
  return async (provider, operation, call) => {
    const started = performance.now();
    let outcome = 'error';
    try {
      const result = await call();
      outcome = 'ok';
      return result;
    } finally {
      calls.inc({ provider, operation, outcome });
      duration.observe({ provider, operation }, (performance.now() - started) / 1000);
    }
  };
}
