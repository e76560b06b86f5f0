// Who a request comes from, for certhub's failure limits and its log of failed logins and fetches:
// the peer's address, or behind a trusted reverse proxy the client its `X-Forwarded-For` names. Limits
// are then per client, not per proxy: one NAT or proxy full of guessers does not lock out the rest.
import { addressKey, canonicalAddress, forwardedClient, type RateLimitRule } from '../../../src/http/rate-limit.js';
import type { RequestInfo } from '../../../src/http/request.js';

type Request = Pick<RequestInfo<unknown, unknown>, 'remoteAddress' | 'headers'>;

export class ClientAddresses {
  private readonly trusted: ReadonlySet<string>;

  constructor(trustedProxies: readonly string[]) {
    this.trusted = new Set(trustedProxies.map(canonicalAddress));
  }

  /** The client's address, as the log shows it (and fail2ban reads it). */
  of(request: Request): string {
    return forwardedClient(request, this.trusted);
  }

  /** The key a rate limit counts against: the client's address (IPv6 by its /64). */
  readonly key: NonNullable<RateLimitRule['key']> = (request) => addressKey(this.of(request));
}
