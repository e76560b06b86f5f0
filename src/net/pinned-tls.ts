// A TLS connection trusting exactly one certificate: the one whose DER SHA-256 is the pin, as ssh
// trusts a known host key. certhub serves a self-signed certificate until it has a `tls` of its own;
// no CA vouches for it, so no CA check is made, and nothing is sent before the certificate presented is
// the pinned one. The agent's fetch and certhub's own admin commands both connect this way.
import { createHash } from 'node:crypto';
import { isIP } from 'node:net';
import { connect, type TLSSocket } from 'node:tls';
import { safeEqual } from '../crypto/constant-time.js';

/** `sha256:` and the lower-case hex SHA-256 of a certificate's DER form. */
export function certificatePin(der: Buffer): string {
  return `sha256:${createHash('sha256').update(der).digest('hex')}`;
}

/**
 * Connects to `url`'s host and port; calls `done` with the socket once the server showed the pinned
 * certificate, or with `mismatch(presented)` when it showed another one (the socket destroyed).
 * Returns the socket at once, for the caller to destroy on a deadline.
 */
export function connectPinned(
  url: URL,
  pin: string,
  mismatch: (presented: string) => Error,
  done: (error: Error | null, socket: TLSSocket) => void,
): TLSSocket {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const socket = connect({
    host,
    port: Number(url.port || 443),
    ...(isIP(host) === 0 ? { servername: host } : {}),
    // The pin replaces the CA check: the certificate is compared below, before any byte is sent.
    rejectUnauthorized: false,
    ALPNProtocols: ['http/1.1'],
  });
  socket.once('secureConnect', () => {
    const der = socket.getPeerCertificate().raw;
    const presented = der === undefined ? 'none' : certificatePin(der);
    if (safeEqual(presented, pin)) return done(null, socket);
    socket.destroy();
    done(mismatch(presented), socket);
  });
  socket.once('error', (error: Error) => done(error, socket));
  return socket;
}
