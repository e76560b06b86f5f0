// Subdomain names under the base domain, and the targets their records point at.
//
// A domain is one label directly under the base domain: `app` or `app.example.com` name the same
// domain. Nested names (`a.b.example.com`) are refused: with them, `app.other.org` would silently
// become `app.other.org.example.com` instead of being refused as a name outside the base domain.
import { isIPv4, isIPv6 } from 'node:net';
import { labelProblem, maxNameLength, normalizeName, punycodeProblem } from '../../../src/net/host-names.js';
import { OutpostError } from '../../../src/errors.js';
import { missingName, missingTarget, urlTargetProblem } from './input-words.js';

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

/**
 * The domain `input` names under `baseDomain`: a label (`app`) or a full name (`app.example.com`).
 * Throws ERR_BAD_REQUEST with a message that says what is wrong.
 */
export function parseDomainName(input: unknown, baseDomain: string): DomainName {
  if (typeof input !== 'string' || input.trim() === '') throw badRequest(`${missingName}: a label such as "app" or a full name such as "app.${baseDomain}"`);
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
  if (typeof input !== 'string' || input.trim() === '') throw badRequest(`${missingTarget}: ${usage}`);
  const url = urlTargetProblem(input);
  if (url !== undefined) throw badRequest(`target "${input}": ${url}`);
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
