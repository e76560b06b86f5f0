// The pure parts of proxying: which headers cross to the backend and back, the X-Forwarded-* set,
// the HTTPS redirect and the pages the proxy answers itself. No sockets here.

/** Headers that describe one connection, not the message (RFC 9110 section 7.6.1): never forwarded. */
const hopByHop = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** Set by this proxy from what it saw itself; a client's own values are dropped, not trusted. */
const forwardedByProxy = new Set(['x-forwarded-proto', 'x-forwarded-host']);

/**
 * Who the client is, as a proxy in front of this one says it: kept only from a peer in
 * `trusted_proxies`, dropped from anyone else (a client would name itself whoever it likes).
 */
const clientIdentity = new Set(['x-forwarded-for', 'forwarded', 'x-real-ip', 'true-client-ip']);

/**
 * `Expect: 100-continue` is answered by the listener itself; the backend client refuses to send it.
 * `Content-Length` is the proxy's own, from the length it checked (request-framing.ts): a client's
 * length is never passed on beside a body the proxy frames.
 */
const answeredByProxy = new Set(['expect', 'content-length']);

/** The headers a WebSocket client library sets for its own handshake with the backend. */
const webSocketHandshake = new Set(['sec-websocket-key', 'sec-websocket-version', 'sec-websocket-extensions', 'sec-websocket-protocol']);

export interface ClientSide {
  /** The client's IP address as the proxy's socket saw it. */
  address: string;
  /** The peer is in `trusted_proxies`: its X-Forwarded-For is extended, its X-Real-IP kept. */
  trusted: boolean;
  /** The Host header the client sent, or the SNI name when it sent none. */
  host: string;
}

/** Names listed in Connection headers (their values, in any case) are hop-by-hop for this message too. */
function connectionTokens(values: readonly string[]): string[] {
  const tokens: string[] = [];
  for (const value of values) for (const token of value.split(',')) tokens.push(token.trim().toLowerCase());
  return tokens;
}

/** The request headers the backend receives (a flat name, value list); names are lower case. */
/**
 * `requestId`: the access log's id of the request, sent as X-Request-Id in place of any the client
 * sent; `webSocket`: the handshake headers the backend's WebSocket client sets itself are left out.
 */
export function backendRequestHeaders(
  incoming: readonly (readonly [string, string])[],
  client: ClientSide,
  options: { webSocket?: boolean; requestId?: string } = {},
): string[] {
  const connection: string[] = [];
  for (const [name, value] of incoming) if (name === 'connection') connection.push(value);
  const listed = connectionTokens(connection);
  const headers: string[] = [];
  const forwardedFor: string[] = [];
  for (const [name, value] of incoming) {
    if (hopByHop.has(name) || listed.includes(name) || forwardedByProxy.has(name) || answeredByProxy.has(name)) continue;
    // CGI and WSGI backends read `X_Forwarded_For` as X-Forwarded-For: a name with `_` could pose as one the proxy sets (nginx drops them too).
    if (name.includes('_')) continue;
    if (clientIdentity.has(name)) {
      if (!client.trusted) continue;
      if (name === 'x-forwarded-for') {
        forwardedFor.push(value);
        continue;
      }
    }
    if (options.webSocket === true && webSocketHandshake.has(name)) continue;
    if (options.requestId !== undefined && name === 'x-request-id') continue;
    headers.push(name, value);
  }
  if (options.requestId !== undefined) headers.push('x-request-id', options.requestId);
  // As nginx's $proxy_add_x_forwarded_for: a trusted proxy's list, then the address this proxy saw.
  forwardedFor.push(client.address);
  headers.push('x-forwarded-for', forwardedFor.join(', '), 'x-forwarded-proto', 'https', 'x-forwarded-host', client.host);
  return headers;
}

/**
 * The backend response fields (a flat name, value list, names lower case) passed to the client as
 * pairs, without hop-by-hop ones (those its Connection header lists too) nor its framing: the proxy
 * frames the body itself. With `hsts`, the route's Strict-Transport-Security replaces the backend's.
 */
export function clientResponseHeaders(fields: readonly string[], hsts?: string): [string, string][] {
  const connection: string[] = [];
  for (let index = 0; index < fields.length; index += 2) if (fields[index] === 'connection') connection.push(fields[index + 1]!);
  const listed = connectionTokens(connection);
  const forwarded: [string, string][] = [];
  for (let index = 0; index < fields.length; index += 2) {
    const name = fields[index]!;
    if (
      hopByHop.has(name) ||
      listed.includes(name) ||
      name === 'content-length' ||
      name === 'date' ||
      (hsts !== undefined && name === 'strict-transport-security')
    )
      continue;
    forwarded.push([name, fields[index + 1]!]);
  }
  if (hsts !== undefined) forwarded.push(['strict-transport-security', hsts]);
  return forwarded;
}

/** The client's address without the IPv4-mapped IPv6 prefix. */
export function clientAddress(text: string): string {
  return text.startsWith('::ffff:') && text.includes('.') ? text.slice('::ffff:'.length) : text;
}

/** The name in a Host header: lower case, without the port; IPv6 literals keep their brackets. */
export function hostName(hostHeader: string): string {
  const host = hostHeader.trim().toLowerCase();
  if (host.startsWith('[')) return host.slice(0, host.indexOf(']') + 1);
  const colon = host.indexOf(':');
  return colon === -1 ? host : host.slice(0, colon);
}

/** The HTTPS URL a plain request for a routed name is sent to, or undefined for a name not routed here. */
export function httpsRedirect(hostHeader: string, pathAndQuery: string, httpsPort: number, domains: { has(domain: string): boolean }): string | undefined {
  const name = hostName(hostHeader);
  if (!domains.has(name)) return undefined;
  return `https://${name}${httpsPort === 443 ? '' : `:${httpsPort}`}${pathAndQuery}`;
}

/** The request line's target as the backend gets it; uWS's query is undefined without a `?`, and empty after a bare one, which is kept. */
export function pathAndQuery(url: string, query: string | undefined): string {
  return query === undefined ? url : `${url}?${query}`;
}

const escapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** The page a client gets when the proxy itself answers with an error status. */
export function errorPage(status: number, title: string, detail: string): string {
  const escape = (text: string) => text.replace(/[&<>"']/g, (character) => escapes[character]!);
  return `<!doctype html>\n<html><head><meta charset="utf-8"><title>${status} ${escape(title)}</title></head>\n<body><h1>${status} ${escape(title)}</h1><p>${escape(detail)}</p></body></html>\n`;
}
