// The configs the certhub admin panel exports and certhub-agent reads: one shape for both, so a file
// exported by the panel works unchanged. The page imports only the types (no zod in its bundle); the
// agent validates files with the schemas. Browser-safe: no Node module may be imported here.
import { z } from 'zod';

const serverUrl = z.url({ protocol: /^https?$/ }).max(2048);
const token = z.string().min(1).max(256);
/**
 * The SHA-256 fingerprint of the certificate certhub serves with while it has no `tls` of its own (its
 * self-signed one): `sha256:` and 64 lower-case hex digits. An agent given it trusts that certificate
 * and no other, as ssh trusts a known host key.
 */
export const serverPin = z.string().regex(/^sha256:[0-9a-f]{64}$/, { message: 'must be sha256: and 64 lower-case hex digits' });
/** `host:port` of a backend; IPv6 in brackets: `[::1]:8080`. */
const backend = z.string().regex(/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/, { message: 'must be host:port' });

/** Fetch (JSON), one domain: the flat form. */
export const fetchOneSchema = z.strictObject({
  server: serverUrl,
  pin: serverPin.optional(),
  domain: z.string().min(1).max(253),
  token,
  /** certhub-agent fetch: also write `<domain>/combined.pem` (full chain and key, 0600) for HAProxy. */
  combined_pem: z.boolean().optional(),
});

/** Fetch (JSON), several domains: a `domains` map from the full name to its token. */
export const fetchManySchema = z.strictObject({
  server: serverUrl,
  pin: serverPin.optional(),
  domains: z.record(z.string().min(1).max(253), z.strictObject({ token })),
  /** certhub-agent fetch: also write `<domain>/combined.pem` (full chain and key, 0600) for HAProxy. */
  combined_pem: z.boolean().optional(),
});

/** Proxy (JSON): a `routes` map from the full name to its backend and the token that fetches its certificate. */
export const proxyRoutesSchema = z.strictObject({
  server: serverUrl,
  pin: serverPin.optional(),
  routes: z.record(z.string().min(1).max(253), z.strictObject({ backend, token })),
});

export type FetchOneExport = z.infer<typeof fetchOneSchema>;
export type FetchManyExport = z.infer<typeof fetchManySchema>;
export type ProxyRoutesExport = z.infer<typeof proxyRoutesSchema>;

/** The backend the Proxy export writes for each route, to be edited before use. */
export const placeholderBackend = '127.0.0.1:8080';
