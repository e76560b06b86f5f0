// `certhub-agent fetch` run: options to targets and settings, then one pass (fetch-once.ts) or a
// watch (fetch-watch.ts) that runs until SIGTERM or SIGINT, and reads its settings again on SIGHUP.
import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fetchOnce, type FetchReport } from '../client/fetch-once.js';
import { plainHttpProblem, targetFromFlags, targetsFromFile, type FetchTarget } from '../client/fetch-targets.js';
import { certificatesOf, trustAnchors, type MaterialTrust } from '../client/material-trust.js';
import { parseReloadCommand, type ReloadCommand } from '../client/reload-hook.js';
import { defaultIntervalMs } from '../client/watch-schedule.js';
import { serverPin } from '../agent-exports.js';
import { ConfigError } from '../../../src/errors.js';
import { assertPrivateFile } from '../../../src/config/private-file.js';
import { exitAfterOutput } from '../../../src/cli/output.js';
import type { FetchCliOptions } from './fetch.js';
import { formatProblems, readOutputFormats, type OutputFormats } from './fetch-formats.js';
import { hostNameOptionProblem } from '../client/host-identity.js';
import type { OwnKeySettings } from '../client/own-key.js';
import { keyTypes } from '../../../src/crypto/key-types.js';

/** Runs `certhub-agent fetch` with the options commander parsed; exits with its code (fetchExitCodes). */
export async function runFetch(options: FetchCliOptions): Promise<void> {
  const settings = await readFetchSettings(options);
  if (options.watch === true) {
    const { watchWithReload } = await import('./fetch-watch.js');
    // --rekey is asked of the start, not of each SIGHUP.
    await watchWithReload(settings, { read: () => readFetchSettings({ ...options, rekey: false }), report, configPath: options.config });
  }
  // Node's default for SIGHUP ends the process; a single pass has nothing to re-read and runs to its end.
  process.on('SIGHUP', () => report.info('received SIGHUP: a single fetch re-reads nothing; it ends when its fetches do'));
  const code = await fetchOnce(settings.targets, settings, report);
  return exitAfterOutput(code);
}

export interface FetchSettings {
  targets: FetchTarget[];
  dir: string;
  ca?: string;
  trust: MaterialTrust;
  timeoutMs: number;
  intervalMs: number;
  reloadCommand?: ReloadCommand;
  /** What is written: the PEM files, bundle.p12, or both. */
  output: OutputFormats;
  /** --host-name: the name reported to certhub; os.hostname() when absent. */
  hostName?: string;
  /** --own-key, --key-type, --rekey: the host makes and keeps the key (own-key.ts). */
  ownKey?: OwnKeySettings;
}

/** The settings of the options, their files read and checked (a config file others may read is refused). */
export async function readFetchSettings(options: FetchCliOptions): Promise<FetchSettings> {
  const problems: string[] = [];
  const flagsGiven = options.server !== undefined || options.token !== undefined || options.domain !== undefined;
  if (options.config !== undefined && flagsGiven) throw new ConfigError(['give either -c, --config FILE or -s, -t and -d, not both']);
  if (options.interval !== undefined && options.watch !== true) problems.push('--interval needs --watch');
  const intervalSeconds = options.interval === undefined ? defaultIntervalMs / 1000 : seconds(options.interval, '--interval', problems);
  const timeoutSeconds = seconds(options.timeout, '--timeout', problems);
  const reloadCommand = options.reloadCmd === undefined ? undefined : parseReloadCommand(options.reloadCmd);
  if (typeof reloadCommand === 'string') problems.push(`--reload-cmd ${reloadCommand}`);
  const ca = options.ca === undefined ? undefined : await readCa(options.ca, problems);
  const bundle = options.caBundle === undefined ? undefined : await readCaBundle(options.caBundle, problems);
  if (options.allowUntrusted === true && options.caBundle !== undefined) problems.push('give either --ca-bundle or --allow-untrusted, not both');
  problems.push(...formatProblems(options));
  const hostNameProblem = options.hostName === undefined ? undefined : hostNameOptionProblem(options.hostName);
  if (hostNameProblem !== undefined) problems.push(`--host-name ${hostNameProblem}`);
  const ownKey = ownKeyOf(options, problems);
  if (problems.length > 0) throw new ConfigError(problems);
  const output = await readOutputFormats(options);
  if (options.config !== undefined) await assertPrivateFile(options.config, 'tokens');
  const fromOptions = options.config === undefined ? [targetFromFlags(options)] : withPin(await targetsFromFile(options.config), options.pin);
  const targets = options.combinedPem === true ? fromOptions.map((target) => ({ ...target, combinedPem: true })) : fromOptions;
  const insecure = options.insecureHttp === true;
  const servers = [...new Map(targets.flatMap((target) => target.servers).map((server) => [server.href, server])).values()];
  const refused = servers.flatMap((server) => plainHttpProblem(server, options.config ?? '-s, --server', insecure) ?? []);
  const pinned = targets.flatMap((target) =>
    target.pin === undefined
      ? []
      : target.servers.flatMap((server) => (server.protocol === 'https:' ? [] : [`--pin needs the server's https:// address, not ${server.origin}`])),
  );
  if (refused.length > 0 || pinned.length > 0) throw new ConfigError([...refused, ...new Set(pinned)]);
  if (!output.pem && targets.some((target) => target.combinedPem === true))
    throw new ConfigError([`${options.config ?? '--combined-pem'}: combined_pem needs --format pem (or pem,p12)`]);
  return {
    targets,
    dir: options.outDir,
    ...(ca === undefined ? {} : { ca }),
    trust: options.allowUntrusted === true ? 'untrusted-allowed' : trustAnchors(bundle),
    timeoutMs: timeoutSeconds * 1000,
    intervalMs: intervalSeconds * 1000,
    ...(typeof reloadCommand === 'object' ? { reloadCommand } : {}),
    output,
    ...(options.hostName === undefined ? {} : { hostName: options.hostName }),
    ...(ownKey === undefined ? {} : { ownKey }),
  };
}

/** --own-key's settings; --key-type and --rekey need it. */
function ownKeyOf(options: FetchCliOptions, problems: string[]): OwnKeySettings | undefined {
  const keyType = keyTypes.find((known) => known === options.keyType);
  if (keyType === undefined) problems.push(`--key-type must be one of ${keyTypes.join(', ')}, not ${JSON.stringify(options.keyType)}`);
  if (options.ownKey !== true) {
    if (options.rekey === true) problems.push('--rekey needs --own-key');
    if (options.keyType !== 'ecdsa-p256' && keyType !== undefined) problems.push('--key-type needs --own-key');
    return undefined;
  }
  return { keyType: keyType ?? 'ecdsa-p256', rekey: options.rekey === true };
}

function seconds(text: string, option: string, problems: string[]): number {
  const value = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text) || value < 1 || value > 7 * 86_400) {
    problems.push(`${option} must be a number of seconds from 1 to 604800`);
    return 1;
  }
  return value;
}

async function readCa(path: string, problems: string[]): Promise<string | undefined> {
  let pem: string;
  try {
    pem = await readFile(path, 'utf8');
  } catch (error) {
    problems.push(`--ca cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
    return undefined;
  }
  try {
    new X509Certificate(pem);
  } catch {
    problems.push(`--ca ${path} is not a PEM certificate`);
    return undefined;
  }
  return pem;
}

/** A file's targets with --pin, when given, in place of the file's `pin`. */
function withPin(targets: FetchTarget[], pin: string | undefined): FetchTarget[] {
  if (pin === undefined) return targets;
  if (!serverPin.safeParse(pin).success) throw new ConfigError(['--pin must be sha256: and 64 lower-case hex digits']);
  return targets.map((target) => ({ ...target, pin }));
}

async function readCaBundle(path: string, problems: string[]): Promise<string | undefined> {
  try {
    const pem = await readFile(path, 'utf8');
    certificatesOf(pem);
    return pem;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    problems.push(`--ca-bundle ${path} ${code === undefined ? (error as Error).message : `cannot be read: ${code}`}`);
    return undefined;
  }
}

const report: FetchReport = {
  info: (line) => process.stdout.write(`${line}\n`),
  problem: (line) => process.stderr.write(`certhub-agent: ${line}\n`),
};
