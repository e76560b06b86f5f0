// `certhub-agent fetch --watch`, and the proxy's source of certificates: each domain is fetched at
// once, then again on the schedule of watch-schedule.ts. A failure of any kind (server down, refused
// token, an answer that is not good material, a disk error) leaves the files as they were and is
// retried with backoff (a refused token with a longer one, which only a new token mends); only
// checked material ever replaces what is on disk. Ends when `signal` aborts.
import { setTimeout as wait } from 'node:timers/promises';
import type { CertificateMaterial } from './certificate-answer.js';
import { fetchMaterial } from './fetch-material.js';
import type { OwnKeySettings } from './own-key.js';
import { CertificateFetchError } from './fetch-failure.js';
import type { FetchTarget } from './fetch-targets.js';
import type { MaterialTrust } from './material-trust.js';
import { delayAfterFailure, delayAfterRefusal, delayAfterSuccess, type WatchTiming } from './watch-schedule.js';
import { writeMaterial, type WriteOptions } from './write-material.js';
import { failedReload, type ReloadReport } from './host-report.js';
import { serverChoices, type CerthubServers, type ServerMove } from './certhub-servers.js';

/** `recoveredAfter`: the failures in a row that this success ends (absent after a success). */
export type WatchEvent =
  | { type: 'written'; domain: string; expiresAt: number; nextInMs: number; recoveredAfter?: number }
  | { type: 'unchanged'; domain: string; expiresAt: number; nextInMs: number; recoveredAfter?: number }
  | { type: 'failed'; domain: string; error: Error; failures: number; nextInMs: number }
  /** onChange threw (a reload command failed): the material is written; the watch goes on. */
  | { type: 'change-failed'; domain: string; error: Error }
  /** onChecked threw (certhub refused or missed the host report): nothing else changes. */
  | { type: 'report-failed'; domain: string; error: Error }
  /** Another certhub server answered than the one used before (certhub-servers.ts). */
  | { type: 'server-moved'; domain: string; move: ServerMove };

/** A domain checked well: what its files hold now, how the last reload went, when it is checked next. */
export interface CheckedDomain {
  material: CertificateMaterial;
  /** The last reload this watch ran for the domain; null before any, or without onChange. */
  reload: ReloadReport | null;
  /** Epoch milliseconds. */
  nextCheckAt: number;
  /** The domain's certhub servers, where its report goes (to the one that answered last). */
  servers: CerthubServers;
}

export interface WatchOptions extends WatchTiming {
  targets: readonly FetchTarget[];
  /** Where the material goes: `<dir>/<domain>/…` (material-files.ts). */
  dir: string;
  /** PEM of a private CA trusted besides the system's roots. */
  ca?: string;
  /** What the material must chain to; default the system's roots. */
  trust?: MaterialTrust;
  /** Deadline of one fetch. */
  timeoutMs?: number;
  /** The formats written besides combined.pem (write-material.ts); the PEM files unless given. */
  output?: Omit<WriteOptions, 'combinedPem'>;
  /** Ends the watch: pending waits end at once, a fetch in flight is abandoned, no file is left half-written. */
  signal: AbortSignal;
  /**
   * After new material of a domain was written; awaited before that domain's next fetch is planned.
   * What it returns is the reload's outcome for the host report (a success without detail when nothing).
   */
  onChange?: (material: CertificateMaterial) => void | ReloadReport | Promise<void | ReloadReport>;
  /** After each good check of a domain (the host report, host-report.ts); awaited before the wait. */
  onChecked?: (checked: CheckedDomain) => void | Promise<void>;
  /** Every outcome, for a log. */
  onEvent?: (event: WatchEvent) => void;
  /** The host makes and keeps the key, and sends certhub a CSR (own-key.ts); `rekey` applies to each domain's first fetch. */
  ownKey?: OwnKeySettings;
  /** Injected in tests. */
  now?: () => number;
  random?: () => number;
}

/** Runs until `options.signal` aborts; resolves once every domain's loop has stopped. */
export async function watchCertificates(options: WatchOptions): Promise<void> {
  // One choice per list of servers, shared by the domains it serves: they stay together on the server that answers.
  const choose = serverChoices(
    options.targets.map((target) => target.servers),
    (move) => options.onEvent?.({ type: 'server-moved', domain: move.domain, move }),
  );
  await Promise.all(options.targets.map((target) => watchOne(target, choose(target.servers), options)));
}

async function watchOne(target: FetchTarget, servers: CerthubServers, options: WatchOptions): Promise<void> {
  const now = options.now ?? Date.now;
  const random = options.random ?? Math.random;
  let failures = 0;
  let refusals = 0;
  let reload: ReloadReport | null = null;
  let ownKey = options.ownKey;
  while (!options.signal.aborted) {
    let nextInMs: number;
    try {
      const request = { ...target, servers, ca: options.ca, trust: options.trust, timeoutMs: options.timeoutMs, signal: options.signal, now };
      const { material, written } = await fetchMaterial(request, { dir: options.dir, ...(ownKey === undefined ? {} : { ownKey }) });
      if (options.signal.aborted) break;
      const changed = await writeMaterial(options.dir, material, { ...options.output, combinedPem: target.combinedPem === true });
      await written();
      // A re-key is asked once, of the first fetch: the ones after it keep the new key.
      if (ownKey?.rekey === true) ownKey = { ...ownKey, rekey: false };
      const recovered = failures > 0 ? { recoveredAfter: failures } : {};
      failures = 0;
      refusals = 0;
      nextInMs = delayAfterSuccess(now(), material.expiresAt, options);
      options.onEvent?.({ type: changed ? 'written' : 'unchanged', domain: material.domain, expiresAt: material.expiresAt, nextInMs, ...recovered });
      if (changed) reload = (await notifyChange(material, options)) ?? reload;
      await report({ material, reload, nextCheckAt: now() + nextInMs, servers }, options);
    } catch (error) {
      if (options.signal.aborted) break;
      failures += 1;
      const failure = error instanceof Error ? error : new Error(String(error));
      const refused = failure instanceof CertificateFetchError && failure.kind === 'token-refused';
      refusals = refused ? refusals + 1 : 0;
      const retryAfterMs = failure instanceof CertificateFetchError ? failure.retryAfterMs : undefined;
      nextInMs = refused ? delayAfterRefusal(refusals, options) : delayAfterFailure(failures, options, random, retryAfterMs);
      options.onEvent?.({ type: 'failed', domain: target.domain, error: failure, failures, nextInMs });
    }
    await sleep(nextInMs, options.signal);
  }
}

/** Runs onChange; its outcome as a report carries it, or undefined without onChange. */
async function notifyChange(material: CertificateMaterial, options: WatchOptions): Promise<ReloadReport | undefined> {
  if (options.onChange === undefined) return undefined;
  try {
    return (await options.onChange(material)) ?? { ok: true, exit_code: 0, output: [] };
  } catch (error) {
    options.onEvent?.({ type: 'change-failed', domain: material.domain, error: error instanceof Error ? error : new Error(String(error)) });
    return failedReload(error);
  }
}

async function report(checked: CheckedDomain, options: WatchOptions): Promise<void> {
  try {
    await options.onChecked?.(checked);
  } catch (error) {
    if (options.signal.aborted) return;
    options.onEvent?.({ type: 'report-failed', domain: checked.material.domain, error: error instanceof Error ? error : new Error(String(error)) });
  }
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return wait(ms, undefined, { signal }).catch(() => {});
}
