// The ACME directories `acme.directory_url` knows by name (named-directories.ts), and the rule that reads the option: a name
// from the table or an https:// URL (RFC 8555 §6.1: ACME is spoken over HTTPS only). No acme-client
// here: the config schema and the setup wizard read this table without loading the ACME client.
import { z } from 'zod';
import { namedDirectories, type DirectoryName } from './named-directories.js';

export { namedDirectories, type DirectoryName };

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
