// Who a request comes from, for certhub's failure limits and its log of failed logins and fetches:
// the peer's address, or behind a trusted reverse proxy the client its `X-Forwarded-For` names. Limits
// are then per client, not per proxy: one NAT or proxy full of guessers does not lock out the rest.
import { addressKey, canonicalAddress, forwardedClient, type RateLimiter, type RateLimitRule } from '../../../src/http/rate-limit.js';
import type { RequestInfo } from '../../../src/http/request.js';
import type { Logger } from '../../../src/log/record.js';

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

  /**
   * A limit on `failures` (wrong keys, wrong tokens) per client, logging one line when a client first
   * runs out of it (each failure logs its own line where it is checked): refusals without a check then
   * write nothing more until a whole window passes.
   */
  failureRule(limiter: RateLimiter, log: Logger, failures: string, notAGuess?: RateLimitRule['notAGuess']): RateLimitRule {
    return {
      limiter,
      count: 'failures',
      ...(notAGuess === undefined ? {} : { notAGuess }),
      key: this.key,
      onExhausted: (request, retryAfterSeconds) =>
        log.warn(`certhub: client out of its allowance of ${failures}`, { client: this.of(request), retry_in_s: retryAfterSeconds }),
    };
  }
}
