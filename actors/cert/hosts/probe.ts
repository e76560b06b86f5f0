// One probe: a TLS handshake with a host at the address it reported from (or the one the operator
// configured for it), naming the domain in SNI, to see which certificate it presents. Nothing is sent
// after the handshake (no HTTP, so there is no redirect to follow), the socket goes to that one
// address and port (a reported address is an IP address, connected as is), and the whole probe has a
// deadline. The certificate is not verified: a probe records what is served, trusted or not.
import { createHash } from 'node:crypto';
import { connect } from 'node:tls';
import { formatHostPort } from '../../../src/net/address.js';

export interface ProbeTarget {
  /** An IP address (reported) or a host name (configured by the operator). */
  host: string;
  port: number;
  /** The domain, sent as SNI. */
  servername: string;
}

export interface ProbeSeen {
  sha256: string;
  not_after: string;
}

/** Connects to `target`, completes a handshake and hangs up; rejects with why when it cannot within `timeoutMs`. */
export function probeTls(target: ProbeTarget, timeoutMs: number): Promise<ProbeSeen> {
  return new Promise((resolve, reject) => {
    const socket = connect({
      host: target.host,
      port: target.port,
      servername: target.servername,
      rejectUnauthorized: false,
    });
    const timer = setTimeout(() => socket.destroy(new Error(`no handshake within ${timeoutMs} ms`)), timeoutMs);
    const done = (error: Error | undefined, seen?: ProbeSeen) => {
      clearTimeout(timer);
      socket.destroy();
      if (error !== undefined) reject(error);
      else if (seen !== undefined) resolve(seen);
    };
    socket.once('secureConnect', () => {
      const certificate = socket.getPeerCertificate();
      if (certificate.raw === undefined || certificate.raw.length === 0) {
        done(new Error('the handshake presented no certificate'));
        return;
      }
      done(undefined, {
        sha256: createHash('sha256').update(certificate.raw).digest('hex'),
        not_after: new Date(certificate.valid_to).toISOString(),
      });
    });
    socket.once('error', (error: Error) => done(error));
  });
}

/** `host:port` as a probe result names it. */
export function probeAddress(target: ProbeTarget): string {
  return formatHostPort(target.host, target.port);
}
