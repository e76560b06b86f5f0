// How many requests one client address may have a front answer at once, event streams included: a
// single client holding hundreds of streams or half-sent requests would otherwise take the sockets and
// memory every other client needs. uWS cannot say which address a closed connection had (its
// connection filter sees the address on connect only), so the count is of requests in flight, not of
// sockets; a connection with nothing in flight is closed by uWS after 10 s idle.
//
// Addresses are grouped as the rate limits group them (`addressKey`): IPv4 by address, IPv6 by /64.
// Loopback is counted like any other address: a local reverse proxy's clients all share it, so the
// default leaves room for many of them.
import { HttpRefusal } from './refusal.js';

/** Requests answered at once for one client address (or IPv6 /64), per front thread, unless configured. */
export const defaultRequestsPerClient = 256;

export class ClientSlots {
  private readonly inFlight = new Map<string, number>();

  constructor(readonly limit: number = defaultRequestsPerClient) {}

  /** Addresses with a request in flight: all the slots hold in memory. */
  get size(): number {
    return this.inFlight.size;
  }

  /**
   * Counts one request for `key`; call the returned function once when it is answered or aborted.
   * `full` is true when the key already had `limit` requests in flight: the request is then refused.
   */
  take(key: string): { full: boolean; release: () => void } {
    const count = (this.inFlight.get(key) ?? 0) + 1;
    this.inFlight.set(key, count);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      const left = (this.inFlight.get(key) ?? 1) - 1;
      if (left === 0) this.inFlight.delete(key);
      else this.inFlight.set(key, left);
    };
    return { full: count > this.limit, release };
  }
}

/** The answer to a client over its allowance: 429, closing the connection, which frees its socket too. */
export function tooManyFromClient(limit: number): HttpRefusal {
  return new HttpRefusal(
    'ERR_RATE_LIMITED',
    `too many requests at once from this address: at most ${limit} are answered together; retry once some have ended`,
    { 'Retry-After': '1' },
  );
}
