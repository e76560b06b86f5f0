// Secrets certhub makes up: per-domain tokens, host tokens (../hosts/host-tokens.ts) and the admin key. 32 random bytes in base64url behind
// a prefix, so a leaked one is recognisable in a log, a paste or a repository (secret scanners and
// `grep -r chd_` find them).
import { randomBytes } from 'node:crypto';

export const domainTokenPrefix = 'chd_';
export const adminKeyPrefix = 'cha_';
export const hostTokenPrefix = 'chh_';

/** A new per-domain token: `chd_` + 43 base64url characters. */
export function newDomainToken(): string {
  return `${domainTokenPrefix}${randomBytes(32).toString('base64url')}`;
}

/** A new host token: `chh_` + 43 base64url characters. */
export function newHostToken(): string {
  return `${hostTokenPrefix}${randomBytes(32).toString('base64url')}`;
}

/** A new admin key: `cha_` + 43 base64url characters. */
export function newAdminKey(): string {
  return `${adminKeyPrefix}${randomBytes(32).toString('base64url')}`;
}

/** Whether `text` has the form of a token made by newDomainToken. */
export function isDomainTokenShape(text: string): boolean {
  return /^chd_[A-Za-z0-9_-]{43}$/.test(text);
}
