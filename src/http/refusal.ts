import { OutpostError, type ErrorCode } from '../errors.js';

/**
 * An error answer that must carry headers of its own: `WWW-Authenticate` on a 401, `Retry-After` on
 * a 429. Thrown like any OutpostError; Reply.error writes its headers.
 */
export class HttpRefusal extends OutpostError {
  constructor(
    code: ErrorCode,
    message: string,
    readonly headers: Readonly<Record<string, string>>,
  ) {
    super(code, message);
  }
}
