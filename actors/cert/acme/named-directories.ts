// The ACME directories certhub knows by name, and the short name of a CA as the panel and
// `certhub check` show it: the name when its directory is one of these, else its directory's host. No
// zod and no acme-client here: the panel reads it in the browser.

/** Each CA's production and staging directory, as the CA publishes it. */
export const namedDirectories = {
  /** https://letsencrypt.org/docs/client-options/ */
  letsencrypt: 'https://acme-v02.api.letsencrypt.org/directory',
  /** https://letsencrypt.org/docs/staging-environment/ */
  'letsencrypt-staging': 'https://acme-staging-v02.api.letsencrypt.org/directory',
  /** https://zerossl.com/documentation/acme/ */
  zerossl: 'https://acme.zerossl.com/v2/DV90',
  /** https://cloud.google.com/certificate-manager/docs/public-ca-tutorial */
  google: 'https://dv.acme-v02.api.pki.goog/directory',
  'google-staging': 'https://dv.acme-v02.test-api.pki.goog/directory',
} as const;

export type DirectoryName = keyof typeof namedDirectories;

/** `letsencrypt` for Let's Encrypt's directory, `ca.example.net:14000` for `https://ca.example.net:14000/dir`. */
export function caNameOf(directoryUrl: string): string {
  const named = Object.entries(namedDirectories).find(([, url]) => url === directoryUrl);
  if (named !== undefined) return named[0];
  return URL.canParse(directoryUrl) ? new URL(directoryUrl).host : directoryUrl;
}
