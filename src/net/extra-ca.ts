// TLS client trust for a private CA: the system's roots plus one extra PEM. Node's `ca` option
// replaces the system roots, so the extra CA is added to all 140-odd of them; given as `ca`, those
// are parsed again for every connection (about 25 ms of CPU each), and https.Agent also joins them
// into its pool key on every request and every freed socket. One secure context per CA, made once,
// costs that once: an ACME order over fresh connections spent 2.7 of its 14 CPU seconds there.
import { createSecureContext, rootCertificates, type SecureContext } from 'node:tls';

const contexts = new Map<string, SecureContext>();

/** A client secure context trusting the system's roots and `extraCaPem`, made once per PEM. */
export function secureContextTrusting(extraCaPem: string): SecureContext {
  let context = contexts.get(extraCaPem);
  if (context === undefined) {
    context = createSecureContext({ ca: [...rootCertificates, extraCaPem] });
    contexts.set(extraCaPem, context);
  }
  return context;
}
