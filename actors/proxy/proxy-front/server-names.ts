// Which served name a TLS server name (SNI) or Host header picks, as nginx and Caddy choose: the exact
// name first, then the longest wildcard that matches it. A wildcard stands for exactly one label
// (RFC 6125 §6.4.3): `*.app.example.com` matches `x.app.example.com`, but neither `app.example.com`
// nor `a.x.app.example.com`.
import type { X509Certificate } from 'node:crypto';

/** The DNS names a certificate covers (its subjectAltName), lower case, in its order. */
export function certificateDnsNames(leaf: X509Certificate): string[] {
  const names: string[] = [];
  for (const entry of (leaf.subjectAltName ?? '').split(', ')) if (entry.startsWith('DNS:')) names.push(entry.slice(4).toLowerCase());
  return names;
}

/** The entry of `names` that `host` (lower case) picks, or undefined when none matches. */
export function matchServerName(host: string, names: Iterable<string>): string | undefined {
  let best: string | undefined;
  for (const name of names) {
    if (name === host) return name;
    if (!name.startsWith('*.')) continue;
    const parent = name.slice(1);
    const first = host.length - parent.length;
    // One whole label before the parent: not empty, no dot in it.
    if (first > 0 && host.endsWith(parent) && !host.slice(0, first).includes('.') && (best === undefined || name.length > best.length)) best = name;
  }
  return best;
}
