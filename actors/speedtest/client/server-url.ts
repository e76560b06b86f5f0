/** The port `netspeed server` listens on unless told otherwise (spec: default port 8080). */
export const defaultServerPort = 8080;

export interface ServerAddress {
  /** Where requests go: the address with its scheme and port, without a trailing slash. */
  url: URL;
  /** The address as the user gave it, `http://` added when it had no scheme (and `:8080` when it had no port either). */
  shown: string;
}

/**
 * `host`, `host:port` or a full URL. Without a scheme, http:// is meant, and a bare host means the
 * server's default port 8080 rather than HTTP's 80. With a scheme the URL means what URLs mean.
 */
export function serverAddress(input: string): ServerAddress {
  const hasScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(input);
  const [hostPart = '', ...rest] = input.split(/(?=[/?#])/);
  const withPort = hasScheme || /:\d+$/.test(hostPart) ? input : `${hostPart}:${defaultServerPort}${rest.join('')}`;
  const shown = hasScheme ? input : `http://${withPort}`;
  let url: URL;
  try {
    url = new URL(shown);
  } catch {
    throw new Error(`${input} is not a server address (expected host, host:port or a URL)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`${input}: only http:// and https:// servers are supported`);
  url.pathname = url.pathname.replace(/\/+$/, '');
  url.search = '';
  url.hash = '';
  return { url, shown };
}

export function apiUrl(server: URL, path: string): URL {
  return new URL(`${server.pathname.replace(/\/+$/, '')}${path}`, server);
}
