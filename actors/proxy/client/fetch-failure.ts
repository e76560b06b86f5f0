// Why a certificate fetch failed, in words a user can act on, with a kind that decides what the
// caller does next (a watch backs off; a 429 waits at least as long as the server asked).
import { OutpostError, type ErrorCode } from '../../../src/errors.js';
import { retryAfterMs } from '../../../src/http/retry-after.js';

export type FetchFailureKind =
  /** No connection: refused, no such host, no route, or no connection within the deadline. */
  | 'unreachable'
  /** Connected, but no complete answer: the deadline passed, the server closed the connection, or the fetch was stopped. */
  | 'no-answer'
  /** The TLS handshake failed: an untrusted or mismatched certificate, or a server without TLS. */
  | 'tls'
  /** 401: a wrong or rotated token, or a domain the server does not know (it says which only of a token it retired). */
  | 'token-refused'
  /** 409: the domain exists but its certificate is not issued yet. */
  | 'not-issued'
  /** 429: too many failed attempts from this address. */
  | 'rate-limited'
  /** 5xx: the server (or a proxy in front of it) could not serve the request. */
  | 'server-error'
  /** Any other status, or a 200 whose body is not usable material. */
  | 'bad-answer';

/** The code of each kind, for whatever reports the failure beyond the agent (its log, its metrics). */
const fetchFailureCodes: Record<FetchFailureKind, ErrorCode> = {
  unreachable: 'ERR_UNAVAILABLE',
  'no-answer': 'ERR_TIMEOUT',
  tls: 'ERR_BAD_GATEWAY',
  'token-refused': 'ERR_UNAUTHORIZED',
  'not-issued': 'ERR_CONFLICT',
  'rate-limited': 'ERR_RATE_LIMITED',
  'server-error': 'ERR_BAD_GATEWAY',
  'bad-answer': 'ERR_BAD_GATEWAY',
};

export class CertificateFetchError extends OutpostError {
  override readonly name: string = 'CertificateFetchError';
  constructor(
    readonly kind: FetchFailureKind,
    message: string,
    /** For `rate-limited`: how long the server asked to wait (Retry-After), in milliseconds. */
    retryAfterMs?: number,
    /** For `token-refused`: the server knows the token as one it retired (rotated away, or its domain removed). */
    readonly retired = false,
  ) {
    super(fetchFailureCodes[kind], message, { retryAfterMs });
  }
}

/**
 * Whether a 401's reason is certhub's word that the token was retired (site/public-routes.ts): a
 * token rotated away, one of a removed domain, or a host token the admin revoked. Any other 401 is a wrong token or an unknown domain.
 */
export function isRetiredTokenReason(reason: string): boolean {
  return /^this token was replaced \(rotated\) on |^this token's domain \S+ was removed from certhub on |^this host token \(host .*\) was revoked on /.test(
    reason,
  );
}

/** TLS errors as Node reports them: OpenSSL's (EPROTO, ERR_SSL_*) and the certificate checks. */
const tlsCodes = /^(EPROTO|ERR_SSL_|ERR_TLS_|CERT_|DEPTH_ZERO_|SELF_SIGNED_|UNABLE_TO_(GET|VERIFY)_|HOSTNAME_MISMATCH)/;

/** A failure of the connection itself (before or while the answer came). */
export function connectionFailure(error: Error, server: string): CertificateFetchError {
  if (error instanceof CertificateFetchError) return error;
  const code = (error as NodeJS.ErrnoException).code ?? '';
  if (code === 'ECONNREFUSED') return new CertificateFetchError('unreachable', `cannot reach ${server}: connection refused (is certhub running there?)`);
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return new CertificateFetchError('unreachable', `cannot reach ${server}: no such host`);
  if (code === 'ETIMEDOUT' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH' || code === 'EADDRNOTAVAIL')
    return new CertificateFetchError('unreachable', `cannot reach ${server}: ${code}`);
  if (tlsCodes.test(code)) {
    const plainHttp = /wrong version number|packet length too long|http request/i.test(error.message);
    const reason = plainHttp
      ? 'the server does not speak TLS (use its http:// address?)'
      : `${error.message}${/CERT|SIGNED|UNABLE_TO/.test(code) ? ' (a private CA? pass it with --ca FILE)' : ''}`;
    return new CertificateFetchError('tls', `TLS with ${server} failed: ${reason}`);
  }
  if (code === 'ECONNRESET' || code === 'EPIPE') return new CertificateFetchError('no-answer', `${server} closed the connection before answering`);
  return new CertificateFetchError('unreachable', `cannot reach ${server}: ${error.message}`);
}

/** A complete answer other than 200, from its status, headers and (bounded) body. */
export function statusFailure(status: number, body: string, retryAfter: string | undefined, domain: string, server: string): CertificateFetchError {
  const reason = serverReason(body);
  switch (status) {
    case 401:
      if (reason !== undefined && isRetiredTokenReason(reason))
        return new CertificateFetchError('token-refused', `${server} refused the token for ${domain} (HTTP 401): ${reason}`, undefined, true);
      return new CertificateFetchError(
        'token-refused',
        `${server} refused the token for ${domain} (HTTP 401): the token is wrong or was rotated, or the server has no domain ${domain}; copy the current token from the certhub panel`,
      );
    case 409:
      return new CertificateFetchError('not-issued', `the certificate of ${domain} is not issued yet (HTTP 409${reason === undefined ? '' : `: ${reason}`})`);
    case 429: {
      const delayMs = retryAfterMs(retryAfter);
      return new CertificateFetchError(
        'rate-limited',
        `${server} is limiting this address after too many failed fetches (HTTP 429${delayMs === undefined ? '' : `, retry after ${Math.ceil(delayMs / 1000)} s`})`,
        delayMs,
      );
    }
    default: {
      if (status >= 500 && status <= 599)
        return new CertificateFetchError('server-error', `${server} answered HTTP ${status} for ${domain}${reason === undefined ? '' : `: ${reason}`}`);
      const redirect = status >= 300 && status < 400 ? '; certhub-agent follows no redirects: is the server URL right?' : '';
      return new CertificateFetchError('bad-answer', `${server} answered HTTP ${status} for ${domain}${reason === undefined ? '' : `: ${reason}`}${redirect}`);
    }
  }
}

/** The `error` of a `{"error": "..."}` body, cut short and without control characters. */
function serverReason(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as unknown;
    const error = typeof parsed === 'object' && parsed !== null ? (parsed as { error?: unknown }).error : undefined;
    if (typeof error !== 'string') return undefined;
    // eslint-disable-next-line no-control-regex -- a server's text goes to a terminal: no escapes
    return error.replace(/[\u0000-\u001f\u007f]/g, ' ').slice(0, 300);
  } catch {
    return undefined;
  }
}
