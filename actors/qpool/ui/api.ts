// The qpool API as the page calls it. Paths are relative to the page, so the page also works
// mounted under a path behind a reverse proxy; only the curl examples use the page's origin.
import type { PoolStatus } from '../browser.js';

/** GET /api/version. */
export interface VersionInfo {
  product: string;
  version: string;
}

/** One poll's answer: the figures, and whether the server is accepting demo (non-quantum) values. */
export interface StatusReading {
  status: PoolStatus;
  /** The `X-Quantum-Demo: 1` header; PoolStatus has no field for it. */
  demo: boolean;
}

/** A server that hangs is as unreachable as one that refuses, and must not stall the poll. */
const answerWithinMs = 4000;

export async function fetchStatus(): Promise<StatusReading> {
  const response = await get('status');
  const body: unknown = await response.json();
  if (!isPoolStatus(body)) throw new Error('the server answered /api/status with something that is not a pool status');
  return { status: body, demo: response.headers.get('X-Quantum-Demo') === '1' };
}

export async function fetchVersion(): Promise<VersionInfo> {
  const body: unknown = await (await get('version')).json();
  if (!isRecord(body) || typeof body.version !== 'string' || typeof body.product !== 'string')
    throw new Error('the server answered /api/version with something else');
  return { product: body.product, version: body.version };
}

async function get(path: string): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(`api/${path}`, { cache: 'no-store', signal: AbortSignal.timeout(answerWithinMs) });
  } catch (error) {
    const timedOut = error instanceof DOMException && error.name === 'TimeoutError';
    throw new Error(timedOut ? `no answer within ${answerWithinMs / 1000} s` : 'no connection to the server');
  }
  if (!response.ok) throw new Error(`the server answered /api/${path} with HTTP ${response.status}`);
  return response;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** Enough of a check that a proxy's or an old server's JSON is reported rather than drawn as NaN. */
function isPoolStatus(value: unknown): value is PoolStatus {
  return isRecord(value) && typeof value.available === 'number' && typeof value.capacity === 'number' && typeof value.served_total === 'number';
}
