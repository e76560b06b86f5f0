// What went wrong with a connection, in words a user can act on, naming the phase it happened in.
import { DeadlineError, type Deadline } from './deadline.js';
import { OutpostError } from '../../../src/errors.js';

/** TLS errors as Node reports them: OpenSSL's (EPROTO, ERR_SSL_*) and certificate checks. */
const tlsCodes = /^(EPROTO|ERR_SSL_|ERR_TLS_|CERT_|DEPTH_ZERO_|SELF_SIGNED_|UNABLE_TO_(GET|VERIFY)_)/;

export function describeFailure(error: Error, { phase, server }: Deadline): Error {
  if (error instanceof DeadlineError || error instanceof ConnectionFailure) return error;
  const code = (error as NodeJS.ErrnoException).code ?? '';
  const reason = (() => {
    if (code === 'ECONNREFUSED') return `cannot reach ${server}: connection refused (is netspeed server running there?)`;
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `cannot reach ${server}: no such host`;
    if (code === 'ETIMEDOUT' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return `cannot reach ${server}: ${code}`;
    if (tlsCodes.test(code)) {
      const plainHttp = /wrong version number|packet length too long|http request/i.test(error.message);
      return `TLS with ${server} failed: ${plainHttp ? 'the server does not speak TLS (is it a plain http:// server?)' : error.message}`;
    }
    if (code === 'ECONNRESET') return `${server} closed the connection`;
    return error.message;
  })();
  return new ConnectionFailure(`${phase}: ${reason}`, code);
}

/** A failure already put in words; `systemCode` is Node's, when there was one. */
export class ConnectionFailure extends OutpostError {
  override readonly name: string = 'ConnectionFailure';
  constructor(
    message: string,
    readonly systemCode: string,
  ) {
    super('ERR_UNAVAILABLE', message);
  }
}
