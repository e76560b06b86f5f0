// The ACME directories `acme.directory_url` knows by name, and the rule that reads the option: a name
// from the table or an https:// URL (RFC 8555 §6.1: ACME is spoken over HTTPS only). No acme-client
// here: the config schema and the setup wizard read this table without loading the ACME client.
import { z } from 'zod';

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

export const directoryNames = Object.keys(namedDirectories) as DirectoryName[];

/**
 * Directories whose CA registers an account only with an external account binding (RFC 8555 §7.3.4):
 * ZeroSSL hands out EAB credentials in its dashboard, Google Public CA through `gcloud publicca external-account-keys create`.
 */
const needsExternalAccount: ReadonlySet<string> = new Set([namedDirectories.zerossl, namedDirectories.google, namedDirectories['google-staging']]);

export function requiresExternalAccount(directoryUrl: string): boolean {
  return needsExternalAccount.has(directoryUrl);
}

/** Let's Encrypt's directories: the CA whose limit on failed validations the retry backoff respects. */
export function isLetsEncrypt(directoryUrl: string): boolean {
  return directoryUrl === namedDirectories.letsencrypt || directoryUrl === namedDirectories['letsencrypt-staging'];
}

/** The URL of a directory name; anything else is returned as it is (a URL). */
export function resolveDirectoryUrl(nameOrUrl: string): string {
  return nameOrUrl in namedDirectories ? namedDirectories[nameOrUrl as DirectoryName] : nameOrUrl;
}

const quotedNames = directoryNames.map((name) => `"${name}"`).join(', ');

/** `acme.directory_url`: a name of namedDirectories, or an https:// URL; the output is the URL. */
export const directoryUrl = z.string().transform((value, context) => {
  if (value in namedDirectories) return namedDirectories[value as DirectoryName];
  if (z.url({ protocol: /^https$/ }).safeParse(value).success) return value;
  const named = /^[a-z][a-z0-9-]*$/.test(value) ? `"${value}" is not a CA certhub knows by name; ` : '';
  context.addIssue({ code: 'custom', message: `${named}must be an https:// URL of an ACME directory, or one of ${quotedNames}` });
  return z.NEVER;
});
