// The failure of an ACME step, with what the CA asked of the caller's backoff.
import { OutpostError } from '../../../src/errors.js';
import { certErrors } from '../error-codes.js';

/** The CA does not know the account that signed the request (RFC 8555 §7.3.1): a CA that lost its state, such as a restarted Pebble. */
export const accountDoesNotExist = 'urn:ietf:params:acme:error:accountDoesNotExist';

/** A CA enforcing ARI refuses a second order replacing the same certificate (boulder's validateReplacementOrder). */
export const alreadyReplaced = 'urn:ietf:params:acme:error:alreadyReplaced';

/** RFC 8555 §6.7 problem types a CA refuses a whole request with, whatever it named. */
export const rateLimited = 'urn:ietf:params:acme:error:rateLimited';
export const serverInternal = 'urn:ietf:params:acme:error:serverInternal';
export const badNonce = 'urn:ietf:params:acme:error:badNonce';

/** RFC 8555 §6.7 problem types about the account, which no retry at the same CA mends soon. */
export const unauthorized = 'urn:ietf:params:acme:error:unauthorized';
export const externalAccountRequired = 'urn:ietf:params:acme:error:externalAccountRequired';
export const userActionRequired = 'urn:ietf:params:acme:error:userActionRequired';

export class AcmeOrderError extends OutpostError {
  constructor(
    message: string,
    /** Seconds the CA asked to wait before trying again (its Retry-After), when it said. */
    readonly retryAfterSeconds?: number,
    /** The CA's RFC 8555 problem type, when the step was refused with one. */
    problemType?: string,
  ) {
    super(certErrors.ERR_ACME_ORDER, retryAfterSeconds === undefined ? message : `${message} (the CA asks to retry after ${retryAfterSeconds} s)`, {
      retryAfterMs: retryAfterSeconds === undefined ? undefined : retryAfterSeconds * 1000,
      problemType,
    });
  }
}
