// Every error that crosses a thread or reaches a client has a stable code, with the HTTP status a front
// answers for it. The codes every role may throw are listed here; a role declares its own beside its
// code (declareErrors, as it declares its actor kinds, sites and jobs) and lists them in its
// RoleDefinition, so src/ names no role's error. Errors travel between threads as `{ code, message,
// status }` (WireError) and are rebuilt by code on the other side, so `instanceof` and `code` checks
// work everywhere, and a role's code keeps its status in a thread that never loaded the role's table.

/** What a code means to a client: the HTTP status a front answers with, and a line for the docs. */
export interface ErrorDeclaration {
  status: number;
  summary: string;
}

/** Codes with their declarations: this file's, or a role's. */
export type ErrorTable = Readonly<Record<string, ErrorDeclaration>>;

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
  ERR_BAD_GATEWAY: { status: 502, summary: 'a backend or upstream server answered with something unusable, or not at all' },
  ERR_CONFIG: { status: 500, summary: 'the configuration is invalid; an executable prints every problem and exits 2' },
} as const satisfies ErrorTable;

declare const declaredCode: unique symbol;

/**
 * A code a role declares: a string only declareErrors makes, so a thread that throws one has loaded
 * the table that gives its status.
 */
export type DeclaredCode<Code extends string = string> = Code & { readonly [declaredCode]: true };

export type ErrorCode = keyof typeof errorCodes | DeclaredCode;

/** The roles' codes this thread has loaded, with their declarations. */
const declaredCodes = new Map<string, ErrorDeclaration>();

/**
 * Declares a role's codes and gives them back as values to throw: `new OutpostError(codes.ERR_X, ...)`.
 * A code of this file, or one declared elsewhere with another meaning, is refused.
 */
export function declareErrors<Table extends ErrorTable>(table: Table): { readonly [Code in keyof Table & string]: DeclaredCode<Code> } {
  for (const [code, declaration] of Object.entries(table)) {
    const known = Object.hasOwn(errorCodes, code) ? undefined : declaredCodes.get(code);
    if (Object.hasOwn(errorCodes, code) || (known !== undefined && (known.status !== declaration.status || known.summary !== declaration.summary))) {
      throw new Error(`${code} is declared twice`);
    }
    declaredCodes.set(code, declaration);
  }
  return Object.fromEntries(Object.keys(table).map((code) => [code, code])) as { readonly [Code in keyof Table & string]: DeclaredCode<Code> };
}

/** The status of a code of this file or one this thread has loaded a declaration of. */
function statusOf(code: string): number | undefined {
  return Object.hasOwn(errorCodes, code) ? errorCodes[code as keyof typeof errorCodes].status : declaredCodes.get(code)?.status;
}

/** The form an error takes on the wire between threads. */
export interface WireError {
  code: ErrorCode;
  message: string;
  /** The code's HTTP status, for a thread that has not loaded the table of a role's code. */
  status: number;
  /** How long the service that refused asked to be left alone (its Retry-After), for the caller's backoff. */
  retryAfterMs?: number;
  /** The refusing service's problem type (an RFC 9457 `type` URI), when its refusal named one. */
  problemType?: string;
}

/** Every error outpost throws on purpose: a code from the table above, so any thread or front can answer for it. */
/** What an OutpostError carries besides its code and message. */
export interface OutpostErrorOptions extends ErrorOptions {
  /** The refusing service's Retry-After, in milliseconds, when it sent one. */
  retryAfterMs?: number | undefined;
  /** The refusing service's problem type (an RFC 9457 `type` URI), when its refusal named one. */
  problemType?: string | undefined;
}

export class OutpostError extends Error {
  override readonly name: string = 'OutpostError';
  /** The refusing service's Retry-After, in milliseconds, when it sent one. */
  readonly retryAfterMs: number | undefined;
  /** The refusing service's problem type (an RFC 9457 `type` URI), when its refusal named one. */
  readonly problemType: string | undefined;

  constructor(
    readonly code: ErrorCode,
    message: string,
    options: OutpostErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.retryAfterMs = options.retryAfterMs;
    this.problemType = options.problemType;
  }

  /** The status a wire error brought for a code this thread has no declaration of. */
  private statusFromWire: number | undefined;

  get status(): number {
    return statusOf(this.code) ?? this.statusFromWire ?? errorCodes.ERR_INTERNAL.status;
  }

  toWire(): WireError {
    return {
      code: this.code,
      message: this.message,
      status: this.status,
      ...(this.retryAfterMs === undefined ? {} : { retryAfterMs: this.retryAfterMs }),
      ...(this.problemType === undefined ? {} : { problemType: this.problemType }),
    };
  }

  static fromWire(wire: WireError): OutpostError {
    const retryAfterMs = typeof wire.retryAfterMs === 'number' && Number.isFinite(wire.retryAfterMs) ? wire.retryAfterMs : undefined;
    const problemType = typeof wire.problemType === 'string' ? wire.problemType : undefined;
    if (!isWireCode(wire)) return new OutpostError('ERR_INTERNAL', wire.message, { retryAfterMs, problemType });
    const error = new OutpostError(wire.code, wire.message, { retryAfterMs, problemType });
    if (statusOf(wire.code) === undefined) error.statusFromWire = wire.status;
    return error;
  }
}

/** A code of this file, or one this thread has loaded a role's declaration of. */
export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && statusOf(code) !== undefined;
}

/** A wire error's code is one known here, or a role's code arriving with the status it declares. */
function isWireCode(wire: { code?: unknown; status?: unknown }): boolean {
  if (isErrorCode(wire.code)) return true;
  return (
    typeof wire.code === 'string' &&
    /^ERR_[A-Z0-9_]+$/.test(wire.code) &&
    Number.isInteger(wire.status) &&
    (wire.status as number) >= 400 &&
    (wire.status as number) <= 599
  );
}

/** Any thrown value as an OutpostError; unknown failures become ERR_INTERNAL with their message kept. */
export function toOutpostError(error: unknown): OutpostError {
  if (error instanceof OutpostError) return error;
  if (isWireError(error)) return OutpostError.fromWire(error);
  return new OutpostError('ERR_INTERNAL', error instanceof Error ? error.message : String(error));
}

function isWireError(value: unknown): value is WireError {
  return typeof value === 'object' && value !== null && isWireCode(value) && typeof (value as { message?: unknown }).message === 'string';
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
