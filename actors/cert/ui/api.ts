// The admin API as the page calls it, with the session cookie. A 401 means the session ended (expired,
// logged out elsewhere, server restarted): the call waits for the login dialog to succeed and is then
// sent again, so whatever the user was doing (and typing) carries on where it was. A call that cannot
// reach certhub waits the same way until it answers again (reachability.ts), instead of failing with
// the browser's "Failed to fetch".
import type { CerthubSessionAnswer, DomainDetail, DomainSummary, DomainView, HostTokenView, IssuedHostToken, Prefs } from '../browser.js';
import { unreachableError, waitUntilReachable } from './reachability.js';

/** Why the session is gone: it ended (expiry, a logout elsewhere), or certhub restarted meanwhile. */
export type SessionEnd = 'ended' | 'restarted';

/** What to do when the server says the session is gone; resolves once the user has logged in again. */
let reauthenticate: (why: SessionEnd) => Promise<void> = () => Promise.reject(new Error('not logged in'));

export function onSessionLost(handler: (why: SessionEnd) => Promise<void>): void {
  reauthenticate = handler;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

/** Paths are relative to the page, so the panel also works mounted under a path behind a proxy. */
export async function call(path: string, init: { method?: string; body?: unknown } = {}): Promise<Response> {
  let why: SessionEnd = 'ended';
  for (;;) {
    let response: Response;
    try {
      response = await fetch(path, {
        method: init.method ?? 'GET',
        cache: 'no-store',
        ...(init.body === undefined ? {} : { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(init.body) }),
      });
    } catch (error) {
      if (!unreachableError(error)) throw error;
      if (!(await waitUntilReachable())) why = 'restarted';
      continue;
    }
    if (response.status === 401) {
      await reauthenticate(why);
      why = 'ended';
      continue;
    }
    if (!response.ok) throw await apiError(response);
    return response;
  }
}

export async function apiError(response: Response): Promise<ApiError> {
  let message = `HTTP ${response.status}`;
  try {
    const body = (await response.json()) as { error?: unknown };
    if (typeof body.error === 'string') message = body.error;
  } catch {
    // Not JSON (a proxy's page): the status says enough.
  }
  const retryAfter = Number(response.headers.get('Retry-After'));
  return new ApiError(response.status, message, Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined);
}

export const domainPath = (name: string) => `api/admin/domains/${encodeURIComponent(name)}`;

/** The domain with its deployment and the hosts that report on it. */
export async function getDomain(name: string): Promise<DomainDetail> {
  return (await call(domainPath(name))).json() as Promise<DomainDetail>;
}

/** Forgets a host of the domain (one taken out of service); a report from it later adds it again. */
export async function removeHost(name: string, id: string): Promise<void> {
  await call(`${domainPath(name)}/hosts/${encodeURIComponent(id)}`, { method: 'DELETE' });
}

/** The host tokens issued under the domain: host, id, creation and last use, never a token. */
export async function listHostTokens(name: string): Promise<HostTokenView[]> {
  return ((await (await call(`${domainPath(name)}/host-tokens`)).json()) as { tokens: HostTokenView[] }).tokens;
}

/** A new token for `host` under the domain: the answer is the only place it is ever shown. */
export async function issueHostToken(name: string, host: string): Promise<IssuedHostToken> {
  return (await call(`${domainPath(name)}/host-tokens`, { method: 'POST', body: { host } })).json() as Promise<IssuedHostToken>;
}

/** Revokes one host's token: that host's next request is refused, the others work on. */
export async function revokeHostToken(name: string, id: string): Promise<void> {
  await call(`${domainPath(name)}/host-tokens/${encodeURIComponent(id)}`, { method: 'DELETE' });
}

/** The full views (tokens included) of `wanted`, in its order; any removed meanwhile are left out. */
export async function fullViews(wanted: readonly DomainSummary[]): Promise<DomainView[]> {
  const { domains } = (await (await call('api/admin/domains')).json()) as { domains: DomainView[] };
  const byName = new Map(domains.map((domain) => [domain.name, domain]));
  return wanted.flatMap((domain) => byName.get(domain.name) ?? []);
}

/** `profile`: the ACME profile to order; absent: the default (acme.profile, else the CA's). */
export async function addDomain(name: string, target: string, profile?: string, names: readonly string[] = []): Promise<DomainView> {
  const body = { name, target, ...(profile === undefined ? {} : { profile }), ...(names.length === 0 ? {} : { names }) };
  return (await call('api/admin/domains', { method: 'POST', body })).json() as Promise<DomainView>;
}

/** The names the domain's certificate covers beside its own (the whole list). */
export async function setNames(name: string, names: readonly string[]): Promise<DomainView> {
  return (await call(domainPath(name), { method: 'PATCH', body: { names } })).json() as Promise<DomainView>;
}

/** The ACME profile of the domain's next orders; null: the default. */
export async function setProfile(name: string, profile: string | null): Promise<DomainView> {
  return (await call(domainPath(name), { method: 'PATCH', body: { profile } })).json() as Promise<DomainView>;
}

/** `adopt`: take over the address records at the name that certhub did not create (docs/certhub.md, *Take over records certhub did not create*). */
export async function setTarget(name: string, target: string, adopt = false): Promise<DomainView> {
  return (await call(domainPath(name), { method: 'PATCH', body: adopt ? { target, adopt } : { target } })).json() as Promise<DomainView>;
}

export async function removeDomain(name: string): Promise<void> {
  await call(domainPath(name), { method: 'DELETE' });
}

export async function rotateToken(name: string): Promise<DomainView> {
  return (await call(`${domainPath(name)}/rotate`, { method: 'POST' })).json() as Promise<DomainView>;
}

/** A domain in error tries again now instead of at its backoff time. */
export async function retryNow(name: string): Promise<DomainView> {
  return (await call(`${domainPath(name)}/retry`, { method: 'POST' })).json() as Promise<DomainView>;
}

/** An issued domain is renewed now. */
export async function renewNow(name: string): Promise<DomainView> {
  return (await call(`${domainPath(name)}/renew`, { method: 'POST' })).json() as Promise<DomainView>;
}

/** An issued domain is renewed now with a new key. */
export async function rekey(name: string): Promise<DomainView> {
  return (await call(`${domainPath(name)}/rekey`, { method: 'POST' })).json() as Promise<DomainView>;
}

/** The domain's certificate is revoked at the CA with an RFC 5280 reason name, and renewed now. */
export async function revoke(name: string, reason: string): Promise<{ domain: DomainView; ca_answer: string }> {
  return (await call(`${domainPath(name)}/revoke`, { method: 'POST', body: { reason } })).json() as Promise<{ domain: DomainView; ca_answer: string }>;
}

export async function loadPrefs(): Promise<Prefs> {
  return (await call('api/admin/prefs')).json() as Promise<Prefs>;
}

export async function savePrefs(update: Partial<Prefs>): Promise<Prefs> {
  return (await call('api/admin/prefs', { method: 'PUT', body: update })).json() as Promise<Prefs>;
}

/**
 * Whether the session cookie is still good, without the login dialog. The page's first call finds the
 * answer already on its way (index.html preloads it, and a preload is only used by a request just
 * like it: no `cache` option here; the server marks the answer no-store).
 */
export async function sessionAlive(): Promise<boolean> {
  return (await sessionState()).active;
}

/** The session answer whole: whether the cookie is good, and whether this certhub is a demo. */
export async function sessionState(): Promise<CerthubSessionAnswer> {
  const response = await fetch('api/admin/session');
  if (!response.ok) throw await apiError(response);
  return (await response.json()) as CerthubSessionAnswer;
}

/**
 * After an event stream dropped: resolves once certhub answers and this page holds a live session
 * again, after a new login if the session did not survive (the login dialog says why).
 */
export async function sessionBack(): Promise<void> {
  let alive: boolean;
  let why: SessionEnd = 'ended';
  try {
    alive = await sessionAlive();
  } catch {
    alive = await waitUntilReachable();
    why = 'restarted';
  }
  if (!alive) await reauthenticate(why);
}

export async function login(key: string): Promise<void> {
  const response = await fetch('api/admin/login', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ key }) });
  if (!response.ok) throw await apiError(response);
}

export async function logout(): Promise<void> {
  await fetch('api/admin/logout', { method: 'POST' });
}
