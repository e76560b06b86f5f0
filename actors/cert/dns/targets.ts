// What record a target makes: an IPv4 address -> A, an IPv6 address -> AAAA, a host name -> CNAME.
// One rule for both sides: the domains actor applies it to the target an admin gives (domains/names.ts
// adds the add form's words and a domain's own rules), and every DNS provider to the record it writes.
import { isIPv4, isIPv6 } from 'node:net';
import { maxNameLength, normalizeName, punycodeProblem } from '../../../src/net/host-names.js';
import { OutpostError } from '../../../src/errors.js';
import type { RecordType } from './protocol.js';

/** CNAME targets may hold underscores (service names such as `_dmarc` are common there). */
const targetLabelPattern = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;

export interface Target {
  /** The target as stored and published (lower case; IPv6 in its compressed form). */
  target: string;
  record_type: RecordType;
}

/** The record `input` makes, in its canonical form. Throws ERR_BAD_REQUEST saying what is wrong. */
export function targetRecord(input: string): Target {
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
