// The cert-fetcher's log lines that need more than a template: what the fronts did with new material,
// and what an operator does about a refused token.
import type { ReloadOutcome } from '../proxy-front/protocol.js';
import { refusedTokenMaxMs } from '../client/watch-schedule.js';

/** What the fronts did with a domain's new material, as one line. */
export function frontsReloadLine(domain: string, outcomes: readonly ReloadOutcome[]): string {
  const count = (outcome: ReloadOutcome) => outcomes.filter((each) => each === outcome).length;
  const swapped = count('swapped');
  const unchanged = count('unchanged');
  const kept = count('kept');
  const fronts = `${outcomes.length} front${outcomes.length === 1 ? '' : 's'}`;
  const parts = [swapped > 0 ? `${swapped} switched to it now` : '', unchanged > 0 ? `${unchanged} had read the new files already` : ''].filter(
    (part) => part !== '',
  );
  if (kept === 0) return `fetch: ${domain}: the new certificate is served by all ${fronts} (${parts.join(', ')})`;
  return `fetch: ${domain}: ${kept} of ${fronts} kept the previous certificate (the front's warning says why)${parts.length === 0 ? '' : `; ${parts.join(', ')}`}`;
}

/** What to do about a refused token, for the line after the failure. */
export function refusedTokenAdvice(domain: string, retired: boolean): string {
  const what = retired
    ? `certhub retired the token of ${domain}: the proxy must be given the domain's new token`
    : `give the proxy the current token of ${domain} (from the certhub panel)`;
  return `fetch: ${what}: put it in the route's token in the proxy's config file, then send SIGHUP (systemctl reload certhub-agent-proxy); until then it is tried again ever less often, up to every ${refusedTokenMaxMs / 3_600_000} hours`;
}
