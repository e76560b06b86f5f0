// The netspeed API as the page calls it. Paths are relative to the page, so it also works mounted
// under a path behind a reverse proxy.
import type { SpeedtestInfo } from '../browser.js';

/** An absolute URL (Resource Timing entries are named by absolute URL) with a unique `r`, so no cache can answer. */
export function freshApiUrl(path: string, query: Record<string, number> = {}): string {
  const url = new URL(`api/${path}`, document.baseURI);
  for (const [key, value] of Object.entries(query)) url.searchParams.set(key, String(value));
  url.searchParams.set('r', Math.random().toString(36).slice(2));
  return url.href;
}

export async function fetchInfo(): Promise<SpeedtestInfo> {
  const response = await fetch(freshApiUrl('info'), { cache: 'no-store' });
  if (!response.ok) throw await refusalOf('info', response);
  return (await response.json()) as SpeedtestInfo;
}

/** The error for an API answer that is not a success, with the server's own reason when it gave one. */
export function refusal(path: string, status: number, body: unknown): Error {
  const reason = typeof body === 'object' && body !== null && 'error' in body && typeof body.error === 'string' ? `: ${body.error}` : '';
  return new Error(`the server answered /api/${path} with ${status}${reason}`);
}

export async function refusalOf(path: string, response: Response): Promise<Error> {
  return refusal(path, response.status, await response.json().catch(() => undefined));
}
