// The configs the certhub admin panel exports and certhub-agent reads: one shape for both, so a file
// exported by the panel works unchanged. The page imports only the types (no zod in its bundle); the
// agent validates files with the schemas. Browser-safe: no Node module may be imported here.
import { z } from 'zod';

const serverUrl = z
  .url({ protocol: /^https?$/ })
  .max(2048)
  .describe("certhub's address: https://, or http:// on loopback (another machine only with insecure_http or --insecure-http).");
/** The most servers an agent is given: the nodes of one certhub. */
export const maxServers = 16;
/**
 * One server, or several: the nodes of one certhub, tried in order when one cannot answer (a list
 * is what an operator writes; the panel exports the one it is served from).
 */
const serverUrls = z
  .union([serverUrl, z.array(serverUrl).min(1).max(maxServers)])
  .describe(
    "certhub's address, or a list of them (its nodes, each serving fetches): tried in order, the next on a connection error, a timeout or a 5xx; https://, or http:// on loopback.",
  );
const token = z.string().min(1).max(256).describe("The domain's token, from the certhub panel.");
/**
 * The SHA-256 fingerprint of the certificate certhub serves with while it has no `tls` of its own (its
 * self-signed one): `sha256:` and 64 lower-case hex digits. An agent given it trusts that certificate
 * and no other, as ssh trusts a known host key.
 */
export const serverPin = z
  .string()
  .regex(/^sha256:[0-9a-f]{64}$/, { message: 'must be sha256: and 64 lower-case hex digits' })
  .describe(
    "The SHA-256 fingerprint (sha256: and 64 lower-case hex digits) of certhub's self-signed certificate, as its start line and panel show it: that certificate is trusted, and no CA.",
  );
/** `host:port` of a backend; IPv6 in brackets: `[::1]:8080`. */
const backend = z.string().regex(/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/, { message: 'must be host:port' });
const domainName = z.string().min(1).max(253);
const combinedPem = z.boolean().optional().describe('Also write <domain>/combined.pem: full chain and key in one file (0600), as HAProxy takes them.');

/** Fetch (JSON), one domain: the flat form. */
export const fetchOneSchema = z.strictObject({
  server: serverUrls,
  pin: serverPin.optional(),
  domain: domainName.describe("The domain's full name, e.g. app.example.net."),
  token,
  combined_pem: combinedPem,
});

/** Fetch (JSON), several domains: a `domains` map from the full name to its token. */
export const fetchManySchema = z.strictObject({
  server: serverUrls,
  pin: serverPin.optional(),
  domains: z.record(domainName, z.strictObject({ token })).describe('Each domain, by its full name, with its token.'),
  combined_pem: combinedPem,
});

/** Proxy (JSON): a `routes` map from the full name to its backend and the token that fetches its certificate. */
export const proxyRoutesSchema = z.strictObject({
  server: serverUrls,
  pin: serverPin.optional(),
  routes: z.record(domainName, z.strictObject({ backend, token })),
});

export type FetchOneExport = z.infer<typeof fetchOneSchema>;
export type FetchManyExport = z.infer<typeof fetchManySchema>;
export type ProxyRoutesExport = z.infer<typeof proxyRoutesSchema>;

/** A `server` as a list, whichever form it was written in. */
export function serverList(server: string | readonly string[]): string[] {
  return typeof server === 'string' ? [server] : [...server];
}

/** The backend the Proxy export writes for each route, to be edited before use. */
export const placeholderBackend = '127.0.0.1:8080';
