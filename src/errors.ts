// Every error that crosses a thread or reaches a client has a stable code listed here, with the HTTP
// status a front answers for it. Errors travel between threads as `{ code, message }` (WireError) and
// are rebuilt by code on the other side, so `instanceof` and `code` checks work everywhere.

export const errorCodes = {
  ERR_BAD_REQUEST: { status: 400, summary: 'the request is malformed or a parameter is out of range' },
  ERR_UNAUTHORIZED: { status: 401, summary: 'credentials are missing or wrong' },
  ERR_FORBIDDEN: { status: 403, summary: 'the credentials do not allow this action' },
  ERR_NOT_FOUND: { status: 404, summary: 'no such resource' },
  ERR_METHOD_NOT_ALLOWED: { status: 405, summary: 'the path exists but not with this method' },
  ERR_CONFLICT: { status: 409, summary: 'the resource is in a state that forbids this change' },
  ERR_BODY_TOO_LARGE: { status: 413, summary: 'the request body is larger than the route accepts' },
  ERR_UNSUPPORTED_MEDIA_TYPE: { status: 415, summary: 'the request body has a content type the route does not read' },
  ERR_RATE_LIMITED: { status: 429, summary: 'too many requests; retry later' },
  ERR_INTERNAL: { status: 500, summary: 'an unexpected failure; the log has details' },
  ERR_ACTOR_UNAVAILABLE: { status: 503, summary: 'the actor that owns this state is restarting or stopped' },
  ERR_UNAVAILABLE: { status: 503, summary: 'the service cannot answer now (empty pool, disk failure, shutting down)' },
  ERR_TIMEOUT: { status: 504, summary: 'an internal call took longer than its deadline' },
  ERR_DNS_PROVIDER: { status: 502, summary: 'the DNS provider refused or failed a change (credentials, zone, provider down)' },
  ERR_DNS_PROPAGATION: { status: 504, summary: 'the authoritative nameservers did not all answer the challenge record in time' },
  ERR_ACME_ORDER: { status: 502, summary: 'the certificate authority refused or failed the order' },
  ERR_BAD_GATEWAY: { status: 502, summary: 'a backend or upstream server answered with something unusable, or not at all' },
  ERR_SEALED_FILE: { status: 500, summary: 'an encrypted file cannot be opened: wrong key, or the file is damaged' },
  ERR_CONFIG: { status: 500, summary: 'the configuration is invalid; an executable prints every problem and exits 2' },
} as const satisfies Record<string, { status: number; summary: string }>;

export type ErrorCode = keyof typeof errorCodes;

/** The form an error takes on the wire between threads. */
export interface WireError {
  code: ErrorCode;
  message: string;
  /** How long the service that refused asked to be left alone (its Retry-After), for the caller's backoff. */
  retryAfterMs?: number;
}

/** Every error outpost throws on purpose: a code from the table above, so any thread or front can answer for it. */
export class OutpostError extends Error {
  override readonly name: string = 'OutpostError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** The refusing service's Retry-After, in milliseconds, when it sent one. */
    readonly retryAfterMs?: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }

  get status(): number {
    return errorCodes[this.code].status;
  }

  toWire(): WireError {
    return { code: this.code, message: this.message, ...(this.retryAfterMs === undefined ? {} : { retryAfterMs: this.retryAfterMs }) };
  }

  static fromWire(wire: WireError): OutpostError {
    const retryAfterMs = typeof wire.retryAfterMs === 'number' && Number.isFinite(wire.retryAfterMs) ? wire.retryAfterMs : undefined;
    return new OutpostError(isErrorCode(wire.code) ? wire.code : 'ERR_INTERNAL', wire.message, retryAfterMs);
  }
}

export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.hasOwn(errorCodes, code);
}

/** Any thrown value as an OutpostError; unknown failures become ERR_INTERNAL with their message kept. */
export function toOutpostError(error: unknown): OutpostError {
  if (error instanceof OutpostError) return error;
  if (isWireError(error)) return OutpostError.fromWire(error);
  return new OutpostError('ERR_INTERNAL', error instanceof Error ? error.message : String(error));
}

function isWireError(value: unknown): value is WireError {
  return typeof value === 'object' && value !== null && isErrorCode((value as { code?: unknown }).code)
    && typeof (value as { message?: unknown }).message === 'string';
}

/** A configuration error: the CLI prints every problem and exits 2. */
export class ConfigError extends OutpostError {
  override readonly name: string = 'ConfigError';
  constructor(readonly problems: readonly string[]) {
    super('ERR_CONFIG', problems.join('\n'));
  }
}

/** Exit codes of every executable. */
export const exitCodes = {
  ok: 0,
  failure: 1,
  usage: 2,
} as const;
