// The agent's pinned connection to certhub (src/net/pinned-tls.ts), with the agent's own error when
// certhub shows another certificate than the pinned one.
import type { TLSSocket } from 'node:tls';
import { certificatePin, connectPinned as connectPinnedTls } from '../../../src/net/pinned-tls.js';
import { CertificateFetchError } from './fetch-failure.js';

export { certificatePin };

/** connectPinned of src/net/pinned-tls.ts; a CertificateFetchError of kind `tls` when the certificate is another. */
export function connectPinned(url: URL, pin: string, shown: string, done: (error: Error | null, socket: TLSSocket) => void): TLSSocket {
  return connectPinnedTls(
    url,
    pin,
    (presented) =>
      new CertificateFetchError(
        'tls',
        `TLS with ${shown} failed: its certificate (${presented}) is not the pinned one (${pin}); if certhub's certificate changed, take the new pin from its start line or panel`,
      ),
    done,
  );
}
