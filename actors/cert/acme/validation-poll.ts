// Waiting for the CA to validate an authorization (RFC 8555 §7.5.1): poll the authorization until it
// is final (valid or invalid), as often as the CA's Retry-After says, else with a growing pause, and
// give up only after a deadline of minutes. acme-client's waitForValidStatus gives up after 12 polls
// (about 36 s) and ignores Retry-After, which would remove the challenge record while the CA still
// validates.
import type { Client } from 'acme-client';
import { retryAfterMs } from '../../../src/http/retry-after.js';
import { defaultValidationPolling, type ValidationPolling } from './validation-deadline.js';

export { defaultValidationPolling, type ValidationPolling };

interface AuthorizationAnswer {
  status: number;
  headers: Record<string, unknown>;
  data: { status?: string; challenges?: { type?: string; error?: { detail?: string; type?: string } }[] };
}

/** The part of acme-client's (untyped) request layer used here: a signed POST-as-GET. */
interface SignedRequests {
  apiRequest(url: string, payload: null, validStatusCodes: number[]): Promise<AuthorizationAnswer>;
}

/** Resolves once the authorization at `url` is valid; throws when it turns invalid or the deadline passes. */
export async function pollUntilFinal(
  client: Client,
  url: string,
  settings: Partial<ValidationPolling> = {},
  log: (message: string) => void = () => {},
  now: () => number = Date.now,
): Promise<void> {
  const polling = { ...defaultValidationPolling, ...settings };
  const api = (client as unknown as { api: SignedRequests }).api;
  const deadline = now() + polling.deadlineMs;
  let pause = polling.minMs;
  for (let polls = 1; ; polls++) {
    const answer = await api.apiRequest(url, null, [200]);
    const status = answer.data.status;
    if (status === 'valid') return;
    if (status !== 'pending') {
      const failed = answer.data.challenges?.find((challenge) => challenge.error !== undefined)?.error;
      throw new Error(`the authorization is ${String(status)}${failed === undefined ? '' : `: ${failed.detail ?? failed.type ?? ''}`}`);
    }
    const header = answer.headers['retry-after'];
    const askedMs = typeof header === 'string' ? retryAfterMs(header, now()) : undefined;
    const wait = askedMs === undefined ? pause : Math.max(polling.minMs, askedMs);
    if (now() + wait > deadline) throw new Error(`the authorization is still pending after ${polls} polls in ${Math.round(polling.deadlineMs / 1000)} s`);
    if (polls === 1 || polls % 10 === 0) log(`acme: the CA is validating ${url} (poll ${polls}); asking again in ${wait} ms`);
    await new Promise((resolve) => setTimeout(resolve, wait));
    pause = Math.min(polling.maxMs, pause * 2);
  }
}
