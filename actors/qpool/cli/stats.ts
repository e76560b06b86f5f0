// `qpool stats`: asks a running server for its pool figures and prints them for a person.
import type { PoolStatus } from '../pool/protocol.js';

export function statusUrl(listen: { host: string; port: number }): string {
  // A server bound to every address is reached on loopback.
  const host = listen.host === '0.0.0.0' ? '127.0.0.1' : listen.host === '::' ? '::1' : listen.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${listen.port}/api/status`;
}

export async function fetchStatus(url: string, timeoutMs = 5000): Promise<PoolStatus> {
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error);
    throw new Error(`no qpool server answers at ${url} (${cause}); is qpool serve running with this config?`);
  }
  if (!response.ok) throw new Error(`${url} answered HTTP ${response.status}; is that a qpool server?`);
  return (await response.json()) as PoolStatus;
}

export function formatStatus(status: PoolStatus, now = Date.now()): string {
  const rows: [string, string][] = [
    ['pool', `${status.available} of ${status.capacity} values`],
    ['oldest', timeWithAge(status.oldest, now)],
    ['newest', timeWithAge(status.newest, now)],
    ['served', `${status.served_total} in total`],
    ['last ingest', timeWithAge(status.last_ingest, now)],
  ];
  return rows.map(([name, value]) => `${name.padEnd(12)} ${value}\n`).join('');
}

function timeWithAge(time: string | undefined, now: number): string {
  if (time === undefined) return '-';
  const seconds = Math.max(0, Math.round((now - Date.parse(time)) / 1000));
  return `${time} (${age(seconds)} ago)`;
}

function age(seconds: number): string {
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min`;
  if (seconds < 172_800) return `${Math.round(seconds / 3600)} h`;
  return `${Math.round(seconds / 86_400)} days`;
}
