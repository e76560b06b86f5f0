// Addresses as people read them: `host:port` with IPv6 in brackets, the URL a person opens, and
// whether a bind address reaches only this machine. Plain functions, so any thread may use them
// without loading a server.

export function formatHostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** The URL a person opens for a server bound to host:port; a wildcard bind is shown as loopback. */
export function urlFor(host: string, port: number, path = '/', scheme: 'http' | 'https' = 'http'): string {
  const shown = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `${scheme}://${formatHostPort(shown, port)}${path}`;
}

/** Bound only to the loopback interface: nobody else can reach it. */
export function isLoopbackOnly(host: string): boolean {
  return host.startsWith('127.') || host === '::1' || host.startsWith('::ffff:127.');
}
