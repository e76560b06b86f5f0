// Whether certhub answers. A call that cannot reach it (fetch rejects: refused, reset, offline) or an
// event stream that drops while it is down shows the banner "certhub is not reachable, retrying" and
// dims the list; one probe then asks again after a pause that doubles from 1 s to 10 s, and once
// certhub answers the banner goes and every call that waited is sent again (api.ts). Only a
// network failure counts: a refusal (4xx) or a server error is an answer, shown where it belongs.
import { byId } from '../../../ui/common/dom.js';

const firstPauseMs = 1000;
const longestPauseMs = 10_000;

const banner = byId('unreachable');
let back: Promise<boolean> | undefined;

/** Whether `error` is fetch's own failure to reach the server, not an error thrown about an answer. */
export function unreachableError(error: unknown): boolean {
  return error instanceof TypeError;
}

/**
 * Resolves once certhub answers again (however many callers wait, one probe runs), with whether this
 * page's session outlived the outage: sessions live in the server's memory, so a restart ends them.
 */
export function waitUntilReachable(): Promise<boolean> {
  back ??= probeUntilAnswered().finally(() => {
    back = undefined;
    banner.hidden = true;
    document.body.dataset.connection = 'live';
  });
  return back;
}

async function probeUntilAnswered(): Promise<boolean> {
  banner.hidden = false;
  document.body.dataset.connection = 'unreachable';
  for (let pause = firstPauseMs; ; pause = Math.min(pause * 2, longestPauseMs)) {
    await new Promise((resolve) => setTimeout(resolve, pause));
    try {
      const response = await fetch('api/admin/session', { cache: 'no-store' });
      // A proxy in front may answer 502 for certhub while it is down: only certhub's own answer counts.
      if (response.ok) return ((await response.json()) as { active: boolean }).active;
    } catch {
      // Still down: the next probe waits longer.
    }
  }
}
