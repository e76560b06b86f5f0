// `certhub-agent fetch` without --watch: every domain fetched once (together), each good answer
// written, the reload command run once if anything changed. The exit code says what happened.
import { fetchCertificate } from './fetch-certificate.js';
import { fetchExitCodes } from './fetch-defaults.js';
import type { FetchTarget } from './fetch-targets.js';
import type { MaterialTrust } from './material-trust.js';
import { materialPaths } from './material-files.js';
import { reloadSuccessLine, runReloadCommand, type ReloadCommand } from './reload-hook.js';
import { writeMaterial, type WriteOptions } from './write-material.js';

export interface FetchOnceOptions {
  dir: string;
  ca?: string;
  /** What the material must chain to; default the system's roots. */
  trust?: MaterialTrust;
  timeoutMs?: number;
  reloadCommand?: ReloadCommand;
  /** The formats written besides combined.pem (write-material.ts); the PEM files unless given. */
  output?: Omit<WriteOptions, 'combinedPem'>;
}

export interface FetchReport {
  info(line: string): void;
  problem(line: string): void;
}

export async function fetchOnce(targets: readonly FetchTarget[], options: FetchOnceOptions, report: FetchReport): Promise<number> {
  const outcomes = await Promise.all(
    targets.map(async (target) => {
      try {
        const material = await fetchCertificate({ ...target, ca: options.ca, timeoutMs: options.timeoutMs, trust: options.trust });
        const changed = await writeMaterial(options.dir, material, { ...options.output, combinedPem: target.combinedPem === true });
        const expires = new Date(material.expiresAt).toISOString();
        report.info(
          `${material.domain}: ${changed ? 'written to' : 'unchanged in'} ${materialPaths(options.dir, material.domain).folder} (expires ${expires})`,
        );
        return { ok: true, changed: changed ? material.domain : undefined };
      } catch (error) {
        report.problem(`${target.domain}: ${error instanceof Error ? error.message : String(error)}`);
        return { ok: false, changed: undefined };
      }
    }),
  );
  const changed = outcomes.flatMap((outcome) => (outcome.changed === undefined ? [] : [outcome.changed]));
  if (changed.length > 0 && options.reloadCommand !== undefined) {
    try {
      const outcome = await runReloadCommand(options.reloadCommand, changed);
      report.info(reloadSuccessLine(options.reloadCommand, changed, outcome));
    } catch (error) {
      report.problem((error as Error).message);
      return outcomes.every((outcome) => outcome.ok) ? fetchExitCodes.reloadFailed : fetchExitCodes.fetchFailed;
    }
  }
  return outcomes.every((outcome) => outcome.ok) ? fetchExitCodes.ok : fetchExitCodes.fetchFailed;
}
