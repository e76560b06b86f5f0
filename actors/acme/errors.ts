// The failure of an ACME step, with what the CA asked of the caller's backoff.
import { OutpostError } from '../../src/errors.js';

export class AcmeOrderError extends OutpostError {
  constructor(
    message: string,
    /** Seconds the CA asked to wait before trying again (its Retry-After), when it said. */
    readonly retryAfterSeconds?: number,
  ) {
    super('ERR_ACME_ORDER', retryAfterSeconds === undefined ? message : `${message} (the CA asks to retry after ${retryAfterSeconds} s)`, retryAfterSeconds === undefined ? undefined : retryAfterSeconds * 1000);
  }
}
