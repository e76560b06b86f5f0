// The admin API as the page calls it, with the session cookie. A 401 means the session ended (expired,
// logged out elsewhere, server restarted): the call waits for the login dialog to succeed and is then
// sent again, so whatever the user was doing (and typing) carries on where it was.
import type { DomainSummary, DomainView } from '../../actors/cert/domains/protocol.js';
import type { Prefs } from '../../actors/cert/domains/prefs-schema.js';
import type { CerthubSessionAnswer } from '../../actors/cert/site/protocol.js';

/** What to do when the server says the session is gone; resolves once the user has logged in again. */
let reauthenticate: () => Promise<void> = () => Promise.reject(new Error('not logged in'));

export function onSessionLost(handler: () => Promise<void>): void {
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
  for (;;) {
    const response = await fetch(path, {
      method: init.method ?? 'GET',
      cache: 'no-store',
      ...(init.body === undefined ? {} : { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(init.body) }),
    });
    if (response.status === 401) {
      await reauthenticate();
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

export async function getDomain(name: string): Promise<DomainView> {
  return (await call(domainPath(name))).json() as Promise<DomainView>;
}

/** The full views (tokens included) of `wanted`, in its order; any removed meanwhile are left out. */
export async function fullViews(wanted: readonly DomainSummary[]): Promise<DomainView[]> {
  const { domains } = (await (await call('api/admin/domains')).json()) as { domains: DomainView[] };
  const byName = new Map(domains.map((domain) => [domain.name, domain]));
  return wanted.flatMap((domain) => byName.get(domain.name) ?? []);
}

export async function addDomain(name: string, target: string): Promise<DomainView> {
  return (await call('api/admin/domains', { method: 'POST', body: { name, target } })).json() as Promise<DomainView>;
}

export async function setTarget(name: string, target: string): Promise<DomainView> {
  return (await call(domainPath(name), { method: 'PATCH', body: { target } })).json() as Promise<DomainView>;
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

export async function login(key: string): Promise<void> {
  const response = await fetch('api/admin/login', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ key }) });
  if (!response.ok) throw await apiError(response);
}

export async function logout(): Promise<void> {
  await fetch('api/admin/logout', { method: 'POST' });
}
