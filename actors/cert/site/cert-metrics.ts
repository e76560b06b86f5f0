// certhub's figures for /metrics, read from the front's replica at each push of the thread's metrics
// (src/metrics/thread-metrics.ts): domains by status and each certificate's expiry. The expiry is a
// timestamp, as blackbox_exporter's probe_ssl_earliest_cert_expiry is, so that an alert reads
// `outpost_certificate_expiry_timestamp_seconds - time() < 7 * 86400` and no figure goes stale between pushes.
import { Counter, Gauge, type Registry } from 'prom-client';
import type { FetchCounts } from './fetch-counts.js';
import type { DomainReplica } from './replica.js';

export function registerCertMetrics(registry: Registry, replica: DomainReplica, fetches: FetchCounts): void {
  const registers = [registry];
  new Gauge({
    name: 'outpost_cert_domains',
    help: 'Domains certhub manages, by status.',
    labelNames: ['status'],
    registers,
    collect() {
      this.reset();
      const counts = new Map<string, number>();
      for (const domain of replica.all()) counts.set(domain.status, (counts.get(domain.status) ?? 0) + 1);
      for (const [status, count] of counts) this.set({ status }, count);
    },
  });
  new Gauge({
    name: 'outpost_certificate_expiry_timestamp_seconds',
    help: "When a domain's certificate expires, in seconds since the Unix epoch.",
    labelNames: ['domain'],
    registers,
    collect() {
      this.reset();
      for (const domain of replica.all()) {
        if (domain.expires_at !== null) this.set({ domain: domain.name }, Date.parse(domain.expires_at) / 1000);
      }
    },
  });
  new Counter({
    name: 'outpost_cert_fetches_total',
    help: 'Certificate fetches (GET /api/cert) by domain and outcome; a refused token is counted with domain="".',
    labelNames: ['domain', 'outcome'],
    registers,
    collect() {
      this.reset();
      for (const { labels, value } of fetches.samples(replica)) this.inc(labels, value);
    },
  });
}
