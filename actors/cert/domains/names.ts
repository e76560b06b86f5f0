// Subdomain names under the base domain, and the targets their records point at.
//
// A domain is one label directly under the base domain: `app` or `app.example.com` name the same
// domain. Nested names (`a.b.example.com`) are refused: with them, `app.other.org` would silently
// become `app.other.org.example.com` instead of being refused as a name outside the base domain.
import { isIPv4, isIPv6 } from 'node:net';
import { domainToASCII, domainToUnicode } from 'node:url';
import { OutpostError } from '../../../src/errors.js';

/** RFC 1035 §2.3.4: a name is at most 253 characters in its usual dotted form. */
export const maxNameLength = 253;
/** RFC 1123 §2.1: letters, digits and hyphens; a digit may start a label; no hyphen at either end. */
const labelPattern = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
/** CNAME targets may hold underscores (service names such as `_dmarc` are common there). */
const targetLabelPattern = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;

export type { RecordType } from './record-type.js';
import type { RecordType } from './record-type.js';

export interface DomainName {
  /** The full name, lower case: `app.example.com`. */
  name: string;
  /** The part before the base domain: `app`. */
  label: string;
}

export interface Target {
  /** The target as stored and published (lower case; IPv6 in its compressed form). */
  target: string;
  record_type: RecordType;
}

/** Why `label` cannot be a host name label, or undefined when it can. */
export function labelProblem(label: string): string | undefined {
  if (label.length === 0) return 'has an empty label';
  if (label.length > 63) return `has a label longer than 63 characters (${label.length})`;
  if (!labelPattern.test(label)) return `has the label "${label}", but labels hold only letters, digits and hyphens, and neither start nor end with a hyphen`;
  // RFC 5891 §4.2.3.1 reserves "??--" for IDNA; certificate authorities refuse every such label but xn--.
  if (label.slice(2, 4) === '--' && !label.startsWith('xn--')) return `has the label "${label}", with "--" in its third and fourth characters, which is reserved (only xn-- labels may)`;
  return punycodeProblem(label);
}

/**
 * Why an `xn--` label is not the ASCII form of an international label (RFC 5891 §5.4: it must decode,
 * to something not plain ASCII, and encode back to itself), or undefined.
 */
function punycodeProblem(label: string): string | undefined {
  if (!label.startsWith('xn--')) return undefined;
  const unicode = domainToUnicode(label);
  if (unicode === '' || unicode === label || !/[\u0080-\u{10ffff}]/u.test(unicode) || domainToASCII(unicode) !== label) return `has the label "${label}", which is not a valid xn-- (punycode) label`;
  return undefined;
}

/** Why `name` (lower case, no trailing dot) is not a host name of at least `minLabels` labels, or undefined. */
export function hostNameProblem(name: string, minLabels = 2): string | undefined {
  if (name.length > maxNameLength) return `is longer than ${maxNameLength} characters`;
  const labels = name.split('.');
  if (labels.length < minLabels) return `must have at least ${minLabels} labels (e.g. example.com)`;
  for (const label of labels) {
    const problem = labelProblem(label);
    if (problem !== undefined) return problem;
  }
  if (/^\d+$/.test(labels[labels.length - 1] ?? '')) return 'ends in an all-numeric label, which no top-level domain is';
  return undefined;
}

/**
 * Lower case, one trailing dot (the root) dropped, an international name in its `xn--` form (UTS #46,
 * as browsers and CAs see it: `bücher` is `xn--bcher-kva`). A name that cannot be converted is left
 * as it is, for the label checks to refuse.
 */
export function normalizeName(text: string): string {
  const name = (text.endsWith('.') ? text.slice(0, -1) : text).toLowerCase();
  if (!/[\u0080-\u{10ffff}]/u.test(name)) return name;
  return domainToASCII(name) || name;
}

/**
 * The domain `input` names under `baseDomain`: a label (`app`) or a full name (`app.example.com`).
 * Throws ERR_BAD_REQUEST with a message that says what is wrong.
 */
export function parseDomainName(input: unknown, baseDomain: string): DomainName {
  if (typeof input !== 'string' || input === '') throw badRequest(`name must be a non-empty string: a label such as "app" or a full name such as "app.${baseDomain}"`);
  const text = normalizeName(input);
  const suffix = `.${baseDomain}`;
  let label: string;
  if (text === baseDomain) throw badRequest(`name "${input}" is the base domain itself; give a subdomain such as "app.${baseDomain}"`);
  if (text.endsWith(suffix)) label = text.slice(0, -suffix.length);
  else if (text.includes('.')) throw badRequest(`name "${input}" is not under the base domain ${baseDomain}`);
  else label = text;
  if (label.includes('.')) throw badRequest(`name "${input}" is nested; only names directly under ${baseDomain} are managed (e.g. "${label.split('.').pop() ?? ''}${suffix}")`);
  const problem = labelProblem(label);
  if (problem !== undefined) throw badRequest(`name "${input}" ${problem}`);
  const name = `${label}${suffix}`;
  if (name.length > maxNameLength) throw badRequest(`name "${input}" makes a name longer than ${maxNameLength} characters`);
  return { name, label };
}

/**
 * What record a target makes: an IPv4 address -> A, an IPv6 address -> AAAA, a host name -> CNAME.
 * `name` is the domain the record belongs to (a CNAME to itself is refused). Throws ERR_BAD_REQUEST.
 */
export function classifyTarget(input: unknown, name?: string): Target {
  const usage = 'an IPv4 address (A record), an IPv6 address (AAAA) or a host name (CNAME)';
  if (typeof input !== 'string' || input === '') throw badRequest(`target must be a non-empty string: ${usage}`);
  if (isIPv4(input)) {
    if (input === '0.0.0.0') throw badRequest('target 0.0.0.0 is the unspecified address, not one a client can reach');
    return { target: input, record_type: 'A' };
  }
  if (isIPv6(input)) {
    if (input.includes('%')) throw badRequest(`target "${input}" has a zone index (%...), which a DNS record cannot hold`);
    const compressed = new URL(`http://[${input}]/`).hostname.slice(1, -1);
    if (compressed === '::') throw badRequest('target :: is the unspecified address, not one a client can reach');
    return { target: compressed, record_type: 'AAAA' };
  }
  const host = normalizeName(input);
  if (/^[\d.]+$/.test(host)) throw badRequest(`target "${input}" is not a valid IPv4 address`);
  if (host.includes(':')) throw badRequest(`target "${input}" is not a valid IPv6 address`);
  const problem = targetHostProblem(host);
  if (problem !== undefined) throw badRequest(`target "${input}" is neither an IP address nor a valid host name: it ${problem}`);
  if (name !== undefined && host === name) throw badRequest(`target "${input}" is the domain itself; a CNAME cannot point to its own name`);
  return { target: host, record_type: 'CNAME' };
}

function targetHostProblem(host: string): string | undefined {
  if (host.length > maxNameLength) return `is longer than ${maxNameLength} characters`;
  const labels = host.split('.');
  if (labels.length < 2) return 'must be fully qualified (e.g. host.example.net)';
  const bad = labels.find((label) => !targetLabelPattern.test(label));
  if (bad === undefined) return labels.map(punycodeProblem).find((problem) => problem !== undefined);
  if (bad === '') return 'has an empty label';
  if (bad.length > 63) return 'has a label longer than 63 characters';
  return `has the label "${bad}"; labels hold letters, digits, hyphens and underscores`;
}

function badRequest(message: string): OutpostError {
  return new OutpostError('ERR_BAD_REQUEST', message);
}
