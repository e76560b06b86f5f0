// Host tokens: a token the admin issues under a domain for one named host. It authenticates what the
// domain's token does for an agent (fetch, CSR, report) for that domain only, and a report made
// with it is that host's; revoking it shuts out that host alone. certhub keeps its SHA-256, never
// the token, which is shown once, in the answer that issues it. The panel imports the types
// (through ../browser.ts): this file imports nothing of Node's.

/** A host token as certhub keeps it (host-token-store.ts) and the fronts' replica carries it. */
export interface HostTokenRecord {
  /** 16 hex digits, made at random: how the admin API names the token. */
  id: string;
  /** The host it is for: the host name every report made with it carries. */
  host: string;
  /** Hex SHA-256 of the token (src/crypto/constant-time.ts secretDigest). */
  sha256: string;
  created_at: string;
  /** The last request made with it, to the minute; null before the first. */
  last_used_at: string | null;
}

/** A host token as the admin API lists it: never its secret, nor its digest. */
export type HostTokenView = Omit<HostTokenRecord, 'sha256'>;

/** The answer that issues a host token: the only one that holds the token. */
export interface IssuedHostToken extends HostTokenView {
  domain: string;
  token: string;
}

/** Who a request made with a host token is: what a report made with it is bound to. */
export interface HostTokenHolder {
  id: string;
  host: string;
}

/** A request made with a host token, as the fronts report them once a second. */
export interface HostTokenUse {
  /** The domain's full name. */
  name: string;
  id: string;
  /** Epoch milliseconds. */
  at: number;
}

/** Host tokens one domain may have. */
export const maxHostTokensPerDomain = 100;

export const hostTokenIdPattern = /^[0-9a-f]{16}$/;

export function viewOf({ sha256: _digest, ...view }: HostTokenRecord): HostTokenView {
  return view;
}

/** Why `host` cannot name a host token, or undefined: it is shown in the panel and carried by reports. */
export function hostTokenHostProblem(host: string): string | undefined {
  if (host.trim() === '') return 'give the host a name';
  if (host.length > 253) return 'the host name is longer than 253 characters';
  // eslint-disable-next-line no-control-regex -- refusing control characters is the point
  if (/[\u0000-\u001f\u007f]/.test(host)) return 'the host name holds control characters';
  if (host !== host.trim()) return 'the host name starts or ends with spaces';
  return undefined;
}
