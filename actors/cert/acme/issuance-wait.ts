// Waiting for the CA to issue a finalized order (RFC 8555 §7.4): the order is `processing` until the
// certificate is ready, and the CA may say with Retry-After when to ask again. The order is polled as
// often as that header says (else with a growing pause) up to a deadline; past it the order is left
// in the order journal with its key, and the next attempt resumes it (order.ts) rather than ordering
// again. acme-client's getCertificate gives up after 12 polls (about 36 s) and ignores Retry-After.
// Only type imports here: the cert role reads the deadline without loading the ACME client.
import type { Client, Order } from 'acme-client';
import { retryAfterMs } from '../../../src/http/retry-after.js';
import { OutpostError } from '../../../src/errors.js';
import { certErrors } from '../error-codes.js';

export interface IssuanceWait {
  /** How long after finalize the order may stay `processing` in one attempt. */
  deadlineMs: number;
  /** Shortest pause between two polls, whatever Retry-After says. */
  minMs: number;
  /** Longest pause when the CA sends no Retry-After; a Retry-After may ask for more, up to the deadline. */
  maxMs: number;
}

/** Five minutes: Let's Encrypt issues in seconds; a CA slower than that is asked again by the next attempt. */
export const defaultIssuanceWait: IssuanceWait = { deadlineMs: 5 * 60_000, minMs: 100, maxMs: 5000 };

/**
 * The order is still `processing` at the end of the wait: not a failure of the domain. The order is
 * kept and resumed; `retryAfterSeconds` is when the CA last asked to be polled again.
 */
export class IssuanceProcessingError extends OutpostError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(certErrors.ERR_ACME_PROCESSING, message, { retryAfterMs: retryAfterSeconds * 1000 });
  }
}

interface OrderAnswer {
  status: number;
  headers: Record<string, unknown>;
  data: Partial<Order> & { error?: { detail?: string; type?: string } };
}

/** The part of acme-client's (untyped) request layer used here: a signed POST-as-GET. */
interface SignedRequests {
  apiRequest(url: string, payload: null, validStatusCodes: number[]): Promise<OrderAnswer>;
}

/** The order once `valid` (with its certificate URL); throws when it turns invalid, IssuanceProcessingError when the deadline passes. */
export async function waitUntilIssued(
  client: Client,
  order: Order,
  settings: Partial<IssuanceWait> = {},
  log: (message: string) => void = () => {},
  now: () => number = Date.now,
): Promise<Order> {
  const wait = { ...defaultIssuanceWait, ...settings };
  const api = (client as unknown as { api: SignedRequests }).api;
  const deadline = now() + wait.deadlineMs;
  let pause = wait.minMs;
  for (let polls = 1; ; polls++) {
    const answer = await api.apiRequest(order.url, null, [200]);
    const status = answer.data.status;
    if (status === 'valid') return { ...order, ...answer.data, url: order.url };
    if (status !== 'processing' && status !== 'ready') {
      const problem = answer.data.error;
      throw new Error(`the order is ${String(status)}${problem === undefined ? '' : `: ${problem.detail ?? problem.type ?? ''}`}`);
    }
    const header = answer.headers['retry-after'];
    const askedMs = typeof header === 'string' ? retryAfterMs(header, now()) : undefined;
    const next = askedMs === undefined ? pause : Math.max(wait.minMs, askedMs);
    if (now() + next > deadline) {
      const seconds = Math.max(1, Math.ceil(next / 1000));
      throw new IssuanceProcessingError(
        `acme: the CA is still issuing the order ${order.url} after ${polls} polls in ${Math.round(wait.deadlineMs / 1000)} s; it is resumed in ${seconds} s`,
        seconds,
      );
    }
    if (polls === 1 || polls % 10 === 0) log(`acme: the CA is issuing ${order.url} (poll ${polls}); asking again in ${next} ms`);
    await new Promise((resolve) => setTimeout(resolve, next));
    pause = Math.min(wait.maxMs, pause * 2);
  }
}
