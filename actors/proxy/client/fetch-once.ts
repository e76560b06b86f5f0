// `certhub-agent fetch` without --watch: every domain fetched once (together), each good answer
// written, the reload command run once if anything changed, then each domain fetched reported to
// certhub (host-report.ts). The exit code says what happened to the material; a report that fails
// is said on stderr and changes it not.
import { fetchExitCodes } from './fetch-defaults.js';
import type { FetchTarget } from './fetch-targets.js';
import type { MaterialTrust } from './material-trust.js';
import { materialPaths } from './material-files.js';
import { reloadSuccessLine, runReloadCommand, type ReloadCommand } from './reload-hook.js';
import { writeMaterial, type WriteOptions } from './write-material.js';
import type { CertificateMaterial } from './certificate-answer.js';
import { lazyHostIdentity } from './host-identity.js';
import { failedReload, hostReport, sendHostReport, type ReloadReport } from './host-report.js';
import { fetchMaterial } from './fetch-material.js';
import type { OwnKeySettings } from './own-key.js';
import { serverChoices, serverMoveLine, type CerthubServers } from './certhub-servers.js';

export interface FetchOnceOptions {
  dir: string;
  ca?: string;
  /** What the material must chain to; default the system's roots. */
  trust?: MaterialTrust;
  timeoutMs?: number;
  reloadCommand?: ReloadCommand;
  /** The formats written besides combined.pem (write-material.ts); the PEM files unless given. */
  output?: Omit<WriteOptions, 'combinedPem'>;
  /** --host-name: the name reported to certhub. */
  hostName?: string;
  /** --own-key: the host makes and keeps the key, and sends certhub a CSR (own-key.ts). */
  ownKey?: OwnKeySettings;
}

export interface FetchReport {
  info(line: string): void;
  problem(line: string): void;
}

export async function fetchOnce(targets: readonly FetchTarget[], options: FetchOnceOptions, report: FetchReport): Promise<number> {
  const choose = serverChoices(
    targets.map((target) => target.servers),
    (move) => report.info(serverMoveLine(move)),
  );
  const outcomes = await Promise.all(
    targets.map(async (target) => {
      const servers = choose(target.servers);
      try {
        const { material, written } = await fetchMaterial({ ...target, servers, ca: options.ca, timeoutMs: options.timeoutMs, trust: options.trust }, options);
        const changed = await writeMaterial(options.dir, material, { ...options.output, combinedPem: target.combinedPem === true });
        await written();
        const expires = new Date(material.expiresAt).toISOString();
        report.info(
          `${material.domain}: ${changed ? 'written to' : 'unchanged in'} ${materialPaths(options.dir, material.domain).folder} (expires ${expires})`,
        );
        return { ok: true, changed: changed ? material.domain : undefined, target, servers, material };
      } catch (error) {
        report.problem(`${target.domain}: ${error instanceof Error ? error.message : String(error)}`);
        return { ok: false, changed: undefined, target, servers, material: undefined };
      }
    }),
  );
  const changed = outcomes.flatMap((outcome) => (outcome.changed === undefined ? [] : [outcome.changed]));
  let reload: ReloadReport | null = null;
  if (changed.length > 0 && options.reloadCommand !== undefined) {
    try {
      const outcome = await runReloadCommand(options.reloadCommand, changed);
      report.info(reloadSuccessLine(options.reloadCommand, changed, outcome));
      reload = { ok: true, exit_code: outcome.code, output: outcome.lastLines };
    } catch (error) {
      report.problem((error as Error).message);
      reload = failedReload(error);
    }
  }
  const fetched = outcomes.flatMap(({ target, servers, material, changed: written }) =>
    material === undefined ? [] : [{ target, servers, material, reload: written === undefined ? null : reload }],
  );
  await reportHosts(fetched, options, report);
  const allFetched = outcomes.every((outcome) => outcome.ok);
  if (reload !== null && !reload.ok) return allFetched ? fetchExitCodes.reloadFailed : fetchExitCodes.fetchFailed;
  return allFetched ? fetchExitCodes.ok : fetchExitCodes.fetchFailed;
}

/** One report per domain fetched; a single run does not know when it runs again. */
async function reportHosts(
  fetched: { target: FetchTarget; servers: CerthubServers; material: CertificateMaterial; reload: ReloadReport | null }[],
  options: FetchOnceOptions,
  report: FetchReport,
): Promise<void> {
  const identity = lazyHostIdentity(options.dir, options.hostName);
  await Promise.all(
    fetched.map(async ({ target, servers, material, reload }) => {
      try {
        await sendHostReport(
          {
            ...target,
            servers,
            ...(options.ca === undefined ? {} : { ca: options.ca }),
            ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
          },
          hostReport({ identity: await identity(), agent: 'fetch', material, reload, nextCheckAt: null }),
        );
      } catch (error) {
        report.problem(`${target.domain}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }),
  );
}
