// Subdomain names under the base domain, and the targets their records point at.
//
// A domain is one label directly under the base domain: `app` or `app.example.com` name the same
// domain. Nested names (`a.b.example.com`) are refused: with them, `app.other.org` would silently
// become `app.other.org.example.com` instead of being refused as a name outside the base domain.
import { labelProblem, maxNameLength, normalizeName } from '../../../src/net/host-names.js';
import { OutpostError } from '../../../src/errors.js';
import { targetRecord, type Target } from '../dns/targets.js';
import { missingName, missingTarget, urlTargetProblem } from './input-words.js';

export interface DomainName {
  /** The full name, lower case: `app.example.com`. */
  name: string;
  /** The part before the base domain: `app`. */
  label: string;
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
  if (label.includes('.'))
    throw badRequest(`name "${input}" is nested; only names directly under ${baseDomain} are managed (e.g. "${label.split('.').pop() ?? ''}${suffix}")`);
  const problem = labelProblem(label);
  if (problem !== undefined) throw badRequest(`name "${input}" ${problem}`);
  const name = `${label}${suffix}`;
  if (name.length > maxNameLength) throw badRequest(`name "${input}" makes a name longer than ${maxNameLength} characters`);
  return { name, label };
}

/**
 * What record a target given for the domain `name` makes (dns/targets.ts), with the add form's words
 * for a blank target or a URL; a CNAME to the domain itself is refused. Throws ERR_BAD_REQUEST.
 */
export function classifyTarget(input: unknown, name?: string): Target {
  const usage = 'an IPv4 address (A record), an IPv6 address (AAAA) or a host name (CNAME)';
  if (typeof input !== 'string' || input.trim() === '') throw badRequest(`${missingTarget}: ${usage}`);
  const url = urlTargetProblem(input);
  if (url !== undefined) throw badRequest(`target "${input}": ${url}`);
  const target = targetRecord(input);
  if (name !== undefined && target.record_type === 'CNAME' && target.target === name)
    throw badRequest(`target "${input}" is the domain itself; a CNAME cannot point to its own name`);
  return target;
}

function badRequest(message: string): OutpostError {
  return new OutpostError('ERR_BAD_REQUEST', message);
}
