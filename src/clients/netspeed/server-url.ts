/** `host:port`, `host` or a full URL; without a scheme, http:// is meant. The result ends without a slash. */
export function serverUrl(input: string): URL {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(input) ? input : `http://${input}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new Error(`${input} is not a server address (expected host, host:port or a URL)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`${input}: only http:// and https:// servers are supported`);
  url.pathname = url.pathname.replace(/\/+$/, '');
  url.search = '';
  url.hash = '';
  return url;
}

export function apiUrl(server: URL, path: string): URL {
  return new URL(`${server.pathname.replace(/\/+$/, '')}${path}`, server);
}
