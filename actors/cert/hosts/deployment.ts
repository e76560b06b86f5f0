// Which hosts serve a domain's newest certificate: each host reported (report.ts) is current or
// stale, and the domain's deployment sums them up. Pure: the time is given, so the domains actor
// judges with its clock and the tests with theirs. The panel imports the types (through ../browser.ts).
// With probes on (probe.ts), what certhub itself sees at the host's address counts too: a host whose
// probe sees another certificate than the newest, or cannot complete a handshake, is stale whatever
// its agent says.

/** What certhub saw when it connected to a host (probe.ts): a TLS handshake, nothing more. */
export interface ProbeResult {
  at: string;
  /** Where it connected, `host:port` (`[v6]:port`). */
  address: string;
  /** SHA-256 of the certificate presented, hex; null when the handshake failed. */
  sha256: string | null;
  not_after: string | null;
  /** Why the handshake failed (refused, timed out...); null when it completed. */
  error: string | null;
}

/** A host as certhub keeps it, one per host id and domain (host-store.ts). */
export interface HostRecord {
  id: string;
  name: string;
  /** The address the last report came from (X-Forwarded-For from a trusted proxy). */
  address: string;
  agent: 'fetch' | 'proxy';
  agent_version: string;
  /** SHA-256 of the certificate served, hex. */
  sha256: string;
  not_after: string;
  /** The first report that named this certificate. */
  served_since: string;
  reload: { ok: boolean; exit_code: number | null; output: string[] } | null;
  last_report_at: string;
  /** When the host said it checks again; null when it did not say. */
  next_check_at: string | null;
  /** The TCP port the host said it serves the certificate on (certhub-agent proxy); null when it did not say. */
  port: number | null;
  /** The certhub server the host said it last fetched from; null when it did not say. */
  server: string | null;
  /** The last probe of the host; null before the first, and with probes off. */
  probe: ProbeResult | null;
  /** The id of the host token (host-tokens.ts) its reports are made with; null: the domain's token. */
  host_token: string | null;
}

/**
 * Why a host is stale: it reports an older certificate, its reload failed, it was not heard from in
 * time, a probe saw another certificate than the newest, or a probe could not complete a handshake.
 */
export type HostProblem = 'old_certificate' | 'reload_failed' | 'silent' | 'probe_old_certificate' | 'probe_failed';

export interface HostView extends HostRecord {
  state: 'current' | 'stale';
  problems: HostProblem[];
  /** When the host turns stale unless it reports again: its next check plus the margin; null when it stated none. */
  silent_after: string | null;
}

/** A domain's hosts in one line: `N hosts: all current`, `K of N stale`. */
export interface Deployment {
  hosts: number;
  stale: number;
  /** `none`: no host has reported. */
  state: 'none' | 'current' | 'stale';
  /** The newest certificate is served by none of the hosts, a while (unservedAfterMs) after it was issued. */
  unserved: boolean;
}

/** The deployment of a domain no host reports on. */
export const noDeployment: Deployment = Object.freeze({ hosts: 0, stale: 0, state: 'none', unserved: false });

/** The certificate certhub serves a domain now, as the hosts are compared with it. */
export interface NewestCertificate {
  sha256: string;
  issued_at: string;
}

export interface HostJudgement {
  /** A host not heard from by its next check plus this much is stale. */
  staleMarginMs: number;
  /** A newest certificate served by no host this long after its issuance flags the domain. */
  unservedAfterMs: number;
}

export interface Assessment {
  hosts: HostView[];
  deployment: Deployment;
  /** The next instant at which a judgement changes without a report (a deadline passes); null when none will. */
  nextChangeAt: number | null;
}

export function assessHosts(records: readonly HostRecord[], newest: NewestCertificate | null, now: number, judgement: HostJudgement): Assessment {
  let nextChangeAt: number | null = null;
  const later = (at: number) => {
    if (at > now && (nextChangeAt === null || at < nextChangeAt)) nextChangeAt = at;
  };
  const hosts = records.map((record): HostView => {
    const problems: HostProblem[] = [];
    if (newest !== null && record.sha256 !== newest.sha256) problems.push('old_certificate');
    if (record.reload !== null && !record.reload.ok) problems.push('reload_failed');
    if (record.probe !== null) {
      if (record.probe.error !== null) problems.push('probe_failed');
      else if (newest !== null && record.probe.sha256 !== newest.sha256) problems.push('probe_old_certificate');
    }
    const silentAfter = record.next_check_at === null ? null : Date.parse(record.next_check_at) + judgement.staleMarginMs;
    if (silentAfter !== null) {
      if (silentAfter <= now) problems.push('silent');
      else later(silentAfter);
    }
    return {
      ...record,
      state: problems.length === 0 ? 'current' : 'stale',
      problems,
      silent_after: silentAfter === null ? null : new Date(silentAfter).toISOString(),
    };
  });
  const stale = hosts.filter((host) => host.state === 'stale').length;
  let unserved = false;
  if (newest !== null && hosts.length > 0 && !hosts.some((host) => host.sha256 === newest.sha256)) {
    const due = Date.parse(newest.issued_at) + judgement.unservedAfterMs;
    if (due <= now) unserved = true;
    else later(due);
  }
  return {
    hosts: hosts.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id < b.id ? -1 : 1)),
    deployment: { hosts: hosts.length, stale, state: hosts.length === 0 ? 'none' : stale === 0 ? 'current' : 'stale', unserved },
    nextChangeAt,
  };
}

/** The deployment in words, as the panel and the logs say it. */
export function deploymentWords(deployment: Deployment): string {
  const { hosts, stale } = deployment;
  if (hosts === 0) return 'no host reports';
  const counted = stale === 0 ? `${hosts} host${hosts === 1 ? '' : 's'}: all current` : `${stale} of ${hosts} stale`;
  return deployment.unserved ? `${counted}; the newest certificate is served nowhere` : counted;
}

/** A report's record: `served_since` is kept while the host serves the same certificate. */
export function recordOfReport(
  previous: HostRecord | undefined,
  report: {
    host_id: string;
    host_name: string;
    agent: HostRecord['agent'];
    agent_version: string;
    serving: { sha256: string; not_after: string };
    reload: HostRecord['reload'];
    next_check_at: string | null;
    port?: number | null | undefined;
    server?: string | undefined;
  },
  address: string,
  now: number,
  /** The id of the host token the report was made with; null: the domain's token. */
  hostToken: string | null = null,
): HostRecord {
  const at = new Date(now).toISOString();
  return {
    id: report.host_id,
    name: report.host_name,
    address,
    agent: report.agent,
    agent_version: report.agent_version,
    sha256: report.serving.sha256,
    not_after: report.serving.not_after,
    served_since: previous !== undefined && previous.sha256 === report.serving.sha256 ? previous.served_since : at,
    reload: report.reload,
    last_report_at: at,
    next_check_at: report.next_check_at,
    port: report.port ?? null,
    server: report.server ?? null,
    // A probe of another address says nothing of this one.
    probe: previous !== undefined && previous.address === address ? previous.probe : null,
    host_token: hostToken,
  };
}
