// A domain's name set: its primary name (names.ts) and the extra names one certificate covers with it.
//
// An extra name is given relative to the base domain, as the primary name is: `www.app`, `a.b`,
// `*.app`; a name ending in the base domain (`www.app.example.com`) is taken whole, and so is one
// ending in a dot (`app.other.org.` is refused as outside the base domain rather than read as
// `app.other.org.example.com`). The apex (`@`, or the base domain itself) and the wildcard at the
// base (`*.example.com`, which covers every name one level under it) are accepted only where
// config.json's allow_apex says so. The CA's own limits are checked here, before any order: at most
// 100 names in a certificate (Let's Encrypt), each label at most 63 octets and each name 253, and a
// wildcard only as a whole leftmost label (RFC 8555 §7.1.3; certhub proves every name with DNS-01,
// the one challenge a CA accepts for a wildcard).
import { labelProblem, maxNameLength, normalizeName } from '../../../src/net/host-names.js';
import { OutpostError } from '../../../src/errors.js';

/** Let's Encrypt's limit of names in one certificate. */
export const maxNamesPerCertificate = 100;

export interface NameSetRules {
  baseDomain: string;
  /** config.json's allow_apex: the base domain itself and `*.<base>` may be in a set. */
  allowApex: boolean;
}

/** `names` as full names, in the order given; the primary name `primary` (full) is not among them. Throws ERR_BAD_REQUEST. */
export function parseExtraNames(input: unknown, primary: string, rules: NameSetRules): string[] {
  if (input === undefined || input === null) return [];
  if (!Array.isArray(input)) throw badRequest('names must be a list of names');
  const names: string[] = [];
  for (const entry of input) {
    const name = parseExtraName(entry, rules);
    if (name === primary) throw badRequest(`name "${String(entry)}" is the domain's own name; names lists the others`);
    if (names.includes(name)) throw badRequest(`name "${String(entry)}" is listed twice`);
    names.push(name);
  }
  if (names.length + 1 > maxNamesPerCertificate)
    throw badRequest(`a certificate holds at most ${maxNamesPerCertificate} names (the CA's limit); this set has ${names.length + 1}`);
  return names;
}

/** One extra name, full and lower case. Throws ERR_BAD_REQUEST saying what is wrong. */
export function parseExtraName(input: unknown, rules: NameSetRules): string {
  const { baseDomain, allowApex } = rules;
  if (typeof input !== 'string' || input.trim() === '') throw badRequest(`give a name such as "www.app" or "*.app"`);
  const given = input.trim();
  const text = normalizeName(given);
  const absolute = given.endsWith('.') || text === baseDomain || text.endsWith(`.${baseDomain}`);
  if (absolute && text !== baseDomain && !text.endsWith(`.${baseDomain}`)) throw badRequest(`name "${input}" is not under the base domain ${baseDomain}`);
  const name = text === '@' ? baseDomain : absolute ? text : `${text}.${baseDomain}`;
  const relative = name === baseDomain ? '' : name.slice(0, -(baseDomain.length + 1));
  const labels = relative === '' ? [] : relative.split('.');
  const apexOption = 'allow_apex in config.json';
  if (labels.length === 0 && !allowApex) throw badRequest(`name "${input}" is the base domain itself, which ${apexOption} does not allow`);
  for (const [index, label] of labels.entries()) {
    if (label === '*') {
      if (index !== 0) throw badRequest(`name "${input}" has "*" after its first label; a wildcard is "*." and a name`);
      continue;
    }
    if (label.includes('*')) throw badRequest(`name "${input}" has "*" inside a label; a wildcard is a whole first label, as in "*.app"`);
    const problem = labelProblem(label);
    if (problem !== undefined) throw badRequest(`name "${input}" ${problem}`);
  }
  if (labels.length === 1 && labels[0] === '*' && !allowApex)
    throw badRequest(`name "${input}" is the wildcard at the base domain, which ${apexOption} does not allow`);
  if (name.length > maxNameLength) throw badRequest(`name "${input}" makes a name longer than ${maxNameLength} characters`);
  return name;
}

export function isWildcard(name: string): boolean {
  return name.startsWith('*.');
}

/** A full name relative to the base domain, as the API takes it: `www.app`, `*.app`, `@` for the apex. */
export function relativeName(name: string, baseDomain: string): string {
  return name === baseDomain ? '@' : name.endsWith(`.${baseDomain}`) ? name.slice(0, -(baseDomain.length + 1)) : name;
}

/** Every name of a domain's certificate, the primary first. */
export function certificateNames(domain: { name: string; names: readonly string[] }): string[] {
  return [domain.name, ...domain.names];
}

/** The names that get the target's address record: every name but wildcards, and wildcards too when `wildcard_records`. */
export function addressNames(domain: { name: string; names: readonly string[]; wildcard_records: boolean }): string[] {
  return certificateNames(domain).filter((name) => domain.wildcard_records || !isWildcard(name));
}

/**
 * ERR_CONFLICT when a name of `names` belongs to another domain than `self` (its primary name or one of
 * its extra names), naming that domain: two certificates would be ordered for one name, and two
 * domains would write its address record.
 */
export function refuseNameOverlap(names: readonly string[], domains: Iterable<{ name: string; names: readonly string[] }>, self: string | undefined): void {
  const wanted = new Set(names);
  for (const domain of domains) {
    if (domain.name === self) continue;
    const taken = certificateNames(domain).find((name) => wanted.has(name));
    if (taken !== undefined) throw new OutpostError('ERR_CONFLICT', `${taken} is a name of the domain ${domain.name} already`);
  }
}

function badRequest(message: string): OutpostError {
  return new OutpostError('ERR_BAD_REQUEST', message);
}
