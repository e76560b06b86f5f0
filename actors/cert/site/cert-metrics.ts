// certhub's figures for /metrics, read from the front's replica at each push of the thread's metrics
// (src/metrics/thread-metrics.ts): domains by status, each certificate's expiry, and the fetches by
// domain, and the hosts that report on each domain by state. The expiry is a timestamp, as blackbox_exporter's probe_ssl_earliest_cert_expiry is, so
// that an alert reads `outpost_certificate_expiry_timestamp_seconds - time() < 7 * 86400` and no
// figure goes stale between pushes. The replica's families are made again only when the replica
// changes: with thousands of domains, making them each second would cost the front thread that
// serves the fetches a share of its time, and the same objects are not pushed again.
import { family, type MetricFamily } from '../../../src/metrics/family.js';
import type { FigureSource } from '../../../src/metrics/thread-metrics.js';
import type { FetchCounts } from './fetch-counts.js';
import type { DomainReplica } from './replica.js';

export function certFigures(replica: DomainReplica, fetches: FetchCounts): FigureSource {
  let ofReplica: MetricFamily[] | undefined;
  replica.onChange(() => (ofReplica = undefined));
  return () => {
    ofReplica ??= replicaFamilies(replica);
    return [
      ...ofReplica,
      family(
        'outpost_cert_fetches_total',
        'Certificate fetches (GET /api/cert) by domain and outcome; a refused token is counted with domain="".',
        'counter',
        fetches.samples(replica),
      ),
    ];
  };
}

function replicaFamilies(replica: DomainReplica): MetricFamily[] {
  const domains = replica.all();
  const byStatus = new Map<string, number>();
  for (const domain of domains) byStatus.set(domain.status, (byStatus.get(domain.status) ?? 0) + 1);
  return [
    family(
      'outpost_cert_domains',
      'Domains certhub manages, by status.',
      'gauge',
      [...byStatus].map(([status, value]) => ({ value, labels: { status } })),
    ),
    family(
      'outpost_certificate_expiry_timestamp_seconds',
      "When a domain's certificate expires, in seconds since the Unix epoch.",
      'gauge',
      domains.flatMap((domain) => (domain.expires_at === null ? [] : [{ value: Date.parse(domain.expires_at) / 1000, labels: { domain: domain.name } }])),
    ),
    family(
      'certhub_hosts',
      'Hosts that report on a domain (certhub-agent), by state: current, or stale (an older certificate, a failed reload, or silent past its next check).',
      'gauge',
      replica.deployments().flatMap(([domain, hosts]) => {
        const stale = hosts.filter((host) => host.state === 'stale').length;
        return [
          { value: hosts.length - stale, labels: { domain, state: 'current' } },
          { value: stale, labels: { domain, state: 'stale' } },
        ];
      }),
    ),
  ];
}
