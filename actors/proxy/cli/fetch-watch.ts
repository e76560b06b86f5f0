// `certhub-agent fetch --watch`: the watch (client/watch.ts) with its log on stdout and stderr, until
// SIGTERM or SIGINT. SIGHUP reads the settings again (the config file, --ca, --ca-bundle), as
// `outpost` reads its own: what changed is logged (never a token, only that it changed) and every
// domain is fetched again at once with the new settings; a file that fails its check is refused with
// its problems and the running settings stay. Node's default for SIGHUP would end the process, which
// `systemctl reload` must never do.
import { fetchExitCodes } from '../client/fetch-defaults.js';
import { CertificateFetchError } from '../client/fetch-failure.js';
import type { FetchReport } from '../client/fetch-once.js';
import type { MaterialTrust } from '../client/material-trust.js';
import { reloadSuccessLine, runReloadCommand } from '../client/reload-hook.js';
import { watchCertificates, type CheckedDomain, type WatchEvent } from '../client/watch.js';
import { hostReport, sendHostReport } from '../client/host-report.js';
import { lazyHostIdentity } from '../client/host-identity.js';
import { serverMoveLine } from '../client/certhub-servers.js';
import { refusedTokenMaxMs } from '../client/watch-schedule.js';
import { ConfigError } from '../../../src/errors.js';
import { exitAfterOutput } from '../../../src/cli/output.js';
import type { FetchSettings } from './fetch-run.js';

export interface WatchReload {
  /** Reads and checks the settings again. */
  read: () => Promise<FetchSettings>;
  report: FetchReport;
  /** The config file, when the targets come from one (else -s, -t, -d, which a SIGHUP cannot change). */
  configPath: string | undefined;
}

/** Runs the watch until SIGTERM or SIGINT, then exits 0. */
export async function watchWithReload(first: FetchSettings, reload: WatchReload): Promise<never> {
  const { report } = reload;
  const stopped = new AbortController();
  let settings = first;
  let run = new AbortController();
  const onStop = () => {
    stopped.abort();
    run.abort();
  };
  process.once('SIGTERM', onStop);
  process.once('SIGINT', onStop);
  let reloading = Promise.resolve();
  let next: FetchSettings | undefined;
  process.on('SIGHUP', () => {
    reloading = reloading.then(async () => {
      const read = await readAgain(reload);
      if (read === undefined || stopped.signal.aborted) return;
      const changes = settingsChanges(next ?? settings, read);
      const what = reload.configPath ?? 'the settings';
      if (changes.length === 0) {
        report.info(`${timestamp()} received SIGHUP: read ${what} again: nothing changed`);
        return;
      }
      report.info(`${timestamp()} received SIGHUP: read ${what} again: ${changes.join('; ')}; fetching every domain again now`);
      next = read;
      run.abort();
    });
  });
  while (!stopped.signal.aborted) {
    await watchCertificates({ ...watchOptions(settings, reload, run.signal), signal: run.signal });
    if (stopped.signal.aborted || next === undefined) break;
    settings = next;
    next = undefined;
    run = new AbortController();
  }
  report.info('stopped');
  return exitAfterOutput(fetchExitCodes.ok);
}

function watchOptions(settings: FetchSettings, { report, configPath }: WatchReload, signal: AbortSignal) {
  const { reloadCommand } = settings;
  const identity = lazyHostIdentity(settings.dir, settings.hostName);
  return {
    ...settings,
    onEvent: (event: WatchEvent) => watchLine(event, report, configPath),
    onChecked: async ({ material, reload, nextCheckAt, servers }: CheckedDomain) => {
      const target = settings.targets.find(({ domain }) => domain === material.domain);
      if (target === undefined) return;
      await sendHostReport(
        { ...target, servers, ...(settings.ca === undefined ? {} : { ca: settings.ca }), timeoutMs: settings.timeoutMs, signal },
        hostReport({ identity: await identity(), agent: 'fetch', material, reload, nextCheckAt }),
      );
    },
    ...(reloadCommand === undefined
      ? {}
      : {
          onChange: async (material: { domain: string }) => {
            const outcome = await runReloadCommand(reloadCommand, [material.domain]);
            report.info(`${timestamp()} ${reloadSuccessLine(reloadCommand, [material.domain], outcome)}`);
            return { ok: true, exit_code: outcome.code, output: outcome.lastLines };
          },
        }),
  };
}

async function readAgain({ read, report }: WatchReload): Promise<FetchSettings | undefined> {
  try {
    return await read();
  } catch (error) {
    const problems = error instanceof ConfigError ? error.problems : [error instanceof Error ? error.message : String(error)];
    report.problem(`${timestamp()} received SIGHUP: reload refused, the running settings stay: ${problems.join('; ')}`);
    return undefined;
  }
}

/** What differs between two settings, in words; a token is named as changed, never shown. */
export function settingsChanges(running: FetchSettings, read: FetchSettings): string[] {
  const changes: string[] = [];
  const before = new Map(running.targets.map((target) => [target.domain, target]));
  const after = new Map(read.targets.map((target) => [target.domain, target]));
  for (const [domain, target] of after) {
    const old = before.get(domain);
    if (old === undefined) changes.push(`domain ${domain} added`);
    else {
      if (old.token !== target.token) changes.push(`token of ${domain} changed`);
      if (hrefs(old.servers) !== hrefs(target.servers)) changes.push(`server of ${domain} now ${target.servers.map((server) => server.origin).join(', ')}`);
      if (old.pin !== target.pin) changes.push(`pin of ${domain} changed`);
      if (old.combinedPem !== target.combinedPem) changes.push(`combined_pem of ${domain} now ${target.combinedPem === true}`);
    }
  }
  for (const domain of before.keys()) if (!after.has(domain)) changes.push(`domain ${domain} removed (its files are left in place)`);
  if (running.ca !== read.ca) changes.push('--ca file changed');
  if (trustKey(running.trust) !== trustKey(read.trust)) changes.push('--ca-bundle file changed');
  if (running.output.p12?.password !== read.output.p12?.password) changes.push('--p12-password-file changed');
  return changes;
}

function hrefs(servers: readonly URL[]): string {
  return servers.map((server) => server.href).join(' ');
}

/** The trust anchors as comparable text: their fingerprints, or the --allow-untrusted mark. */
function trustKey(trust: MaterialTrust): string {
  return trust === 'untrusted-allowed' ? trust : trust.anchors.map((anchor) => anchor.fingerprint256).join(',');
}

function watchLine(event: WatchEvent, report: FetchReport, configPath: string | undefined): void {
  const at = timestamp();
  switch (event.type) {
    case 'written':
    case 'unchanged':
      report.info(`${at} ${event.domain}: ${event.type} (expires ${new Date(event.expiresAt).toISOString()}); next fetch in ${duration(event.nextInMs)}`);
      break;
    case 'failed': {
      const nextAt = new Date(Date.now() + event.nextInMs).toISOString();
      report.problem(
        `${at} ${event.domain}: ${event.error.message}; files left as they were; retrying in ${duration(event.nextInMs)}, at ${nextAt} (failure ${event.failures} in a row)`,
      );
      const { error } = event;
      if (error instanceof CertificateFetchError && error.kind === 'token-refused')
        report.problem(`${at} ${event.domain}: ${refusedTokenAdvice(error.retired, configPath)}`);
      break;
    }
    case 'change-failed':
      report.problem(`${at} ${event.domain}: written, but ${event.error.message}`);
      break;
    case 'report-failed':
      report.problem(`${at} ${event.domain}: ${event.error.message}`);
      break;
    case 'server-moved':
      report.info(`${at} ${serverMoveLine(event.move)}`);
      break;
    default:
      throw new Error(`unknown watch event ${String(event satisfies never)}`);
  }
}

/** What the operator does about a refused token. */
function refusedTokenAdvice(retired: boolean, configPath: string | undefined): string {
  const what = retired
    ? "certhub retired this token: certhub-agent must be given the domain's new token"
    : "give certhub-agent the domain's current token (from the certhub panel)";
  const how =
    configPath === undefined
      ? 'restart it with the new -t TOKEN'
      : `put it in ${configPath}, then send SIGHUP (systemctl reload certhub-agent-fetch) to use it without a restart`;
  return `${what}; ${how}. Until then the token is tried again ever less often, up to every ${refusedTokenMaxMs / 3_600_000} hours`;
}

function timestamp(): string {
  return new Date().toISOString();
}

function duration(ms: number): string {
  if (ms < 120_000) return `${Math.round(ms / 100) / 10} s`;
  if (ms < 7_200_000) return `${Math.round(ms / 60_000)} min`;
  return `${Math.round(ms / 360_000) / 10} h`;
}
