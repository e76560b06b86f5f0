// The line the proxy logs once it listens: in words, which routes it serves, where each goes, and
// which have a certificate, so a route that will refuse every handshake is seen at start, not at the
// first complaint.
import { join } from 'node:path';

export interface LoadedRoute {
  domain: string;
  backend: string;
  /** A certificate was loaded for it. */
  served: boolean;
}

export function startSummary(routes: readonly LoadedRoute[], urls: readonly string[], materialDir: string): string {
  const where = urls.join(' and ');
  if (routes.length === 0) return `proxy on ${where} has no route: every handshake is refused`;
  const described = routes.map(({ domain, backend, served }) =>
    served
      ? `${domain} -> ${backend} (certificate loaded)`
      : `${domain} -> ${backend} (no certificate yet: its handshakes are refused until one is in ${join(materialDir, domain)})`,
  );
  const loaded = routes.filter((route) => route.served).length;
  const count = `${routes.length} route${routes.length === 1 ? '' : 's'}, ${loaded === routes.length ? 'every one' : `${loaded}`} with a certificate`;
  return `proxy on ${where}: ${count}: ${described.join(', ')}`;
}
