// What certhub-agent tells certhub after each check of a domain (POST /api/cert/<domain>/report,
// with the domain's token): which certificate this host now serves or wrote, how its last reload
// went, its version, when it checks again, and (the proxy) the port it serves on. certhub shows which hosts are current and which are
// stale (docs/certhub.md, See which hosts serve what). A report that fails is said in the log and changes nothing else:
// the material on disk is what matters to the host.
import { X509Certificate, createHash } from 'node:crypto';
import type { HostReport } from '../../cert/index.js';
import { version } from '../../../src/version.js';
import type { CertificateMaterial } from './certificate-answer.js';
import { postToCerthub, type CertificateRequest } from './fetch-certificate.js';
import type { HostIdentity } from './host-identity.js';

/** How the last reload after new material went, as the report carries it. */
export type ReloadReport = NonNullable<HostReport['reload']>;

export interface ReportInput {
  identity: HostIdentity;
  agent: HostReport['agent'];
  material: CertificateMaterial;
  reload: ReloadReport | null;
  /** Epoch milliseconds; null when the agent does not know (a single fetch). */
  nextCheckAt: number | null;
  /** The port this host serves the certificate on (the proxy's), for certhub's probes; unknown to a fetch. */
  port?: number;
}

/** Output lines and their length as certhub accepts them (actors/cert/hosts/report.ts). */
const reportedLines = 5;
const reportedLineLength = 200;

export function hostReport({ identity, agent, material, reload, nextCheckAt, port }: ReportInput): HostReport {
  return {
    host_id: identity.id,
    host_name: identity.name,
    agent,
    agent_version: version,
    serving: {
      sha256: createHash('sha256').update(new X509Certificate(material.certPem).raw).digest('hex'),
      not_after: new Date(material.expiresAt).toISOString(),
    },
    reload: reload === null ? null : { ...reload, output: reload.output.slice(-reportedLines).map((line) => line.slice(0, reportedLineLength)) },
    next_check_at: nextCheckAt === null ? null : new Date(nextCheckAt).toISOString(),
    ...(port === undefined ? {} : { port }),
    ...(material.server === undefined ? {} : { server: material.server }),
  };
}

/** Sends the report; throws an Error that says what certhub answered when it is not 200. */
export async function sendHostReport(request: CertificateRequest, report: HostReport): Promise<void> {
  const answer = await postToCerthub(request, `api/cert/${encodeURIComponent(request.domain)}/report`, 'reported to', { json: JSON.stringify(report) });
  if (answer.status === 200) return;
  let said = answer.body.slice(0, 200);
  try {
    const parsed = JSON.parse(answer.body) as { error?: unknown };
    if (typeof parsed.error === 'string') said = parsed.error;
  } catch {
    // Not JSON: the start of the body says what it is.
  }
  throw new Error(`certhub refused the host report for ${request.domain} (HTTP ${answer.status}: ${said})`);
}

/** A reload's failure as the report carries it: its exit code and last lines when it ran, else its message. */
export function failedReload(error: unknown): ReloadReport {
  if (error instanceof ReloadFailure) return { ok: false, exit_code: error.exitCode, output: error.lastLines };
  return { ok: false, exit_code: null, output: [error instanceof Error ? error.message : String(error)] };
}

/** A reload command that failed: how it ended and what it said last (reload-hook.ts). */
export class ReloadFailure extends Error {
  override readonly name: string = 'ReloadFailure';
  constructor(
    message: string,
    readonly exitCode: number | null,
    readonly lastLines: string[],
  ) {
    super(message);
  }
}
