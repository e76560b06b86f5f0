// The add form's checks as the user types, mirroring what the server refuses (actors/cert/domains/names.ts)
// so most mistakes show before a request; the server's answer is still shown when it disagrees. The
// words for a blank field and a URL are the server's own (domains/input-words.ts, through browser.ts).
import { missingName, missingTarget, urlTargetProblem } from '../browser.js';

const label = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const targetLabel = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;
const ipv4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

/** What a blank field is told when the form is sent (while typing, a blank field is left alone). */
export const blankProblem = { name: missingName, target: missingTarget } as const;

/** Why `input` is not a subdomain of `baseDomain` (a label or the full name), or '' when it is one. */
export function nameProblem(input: string, baseDomain: string): string {
  const text = input.trim().toLowerCase().replace(/\.$/, '');
  if (text === '') return '';
  const suffix = baseDomain === '' ? '' : `.${baseDomain}`;
  const part = suffix !== '' && text.endsWith(suffix) ? text.slice(0, -suffix.length) : text;
  if (part.includes('.')) return suffix === '' ? 'one label, such as app' : `one label directly under ${baseDomain}, such as app`;
  if (part.length > 63) return 'at most 63 characters';
  if (!label.test(part)) return 'letters, digits and hyphens only, not starting or ending with a hyphen';
  return '';
}

/** The most names a certificate holds (the CA's limit, domains/name-set.ts): the domain's own and 99 more. */
const maxExtraNames = 99;

/** The names typed in a names field: separated by commas, blanks or new lines. */
export function splitNames(input: string): string[] {
  return input.split(/[\s,]+/).filter((name) => name !== '');
}

/**
 * Why the names typed (`www.app, *.app, a.b, @`) are not a name set under `baseDomain`, or '' when
 * they are (or none is typed). The apex is left to the server, which knows whether allow_apex allows it.
 */
export function namesProblem(input: string, baseDomain: string): string {
  const names = splitNames(input.toLowerCase());
  if (names.length > maxExtraNames) return `at most ${maxExtraNames} names beside the domain's own (the CA's limit of 100 a certificate)`;
  const suffix = baseDomain === '' ? '' : `.${baseDomain}`;
  for (const given of names) {
    const text = given.replace(/\.$/, '');
    if (text === '@' || text === baseDomain) continue;
    const part = suffix !== '' && text.endsWith(suffix) ? text.slice(0, -suffix.length) : text;
    if (given.endsWith('.') && suffix !== '' && !text.endsWith(suffix)) return `${given}: not under ${baseDomain}`;
    const full = suffix === '' ? part : `${part}${suffix}`;
    if (full.length > 253) return `${given}: longer than 253 characters`;
    for (const [index, one] of part.split('.').entries()) {
      if (one === '*' && index === 0) continue;
      if (one.includes('*')) return `${given}: a wildcard is a whole first label, as in *.app`;
      if (one.length > 63) return `${given}: a label of at most 63 characters`;
      if (!label.test(one)) return `${given}: letters, digits and hyphens only, not starting or ending with a hyphen`;
    }
    if (names.filter((other) => other.replace(/\.$/, '') === text).length > 1) return `${given}: listed twice`;
  }
  return '';
}

/** Why `input` is not an IP address or a host name, or '' when it is one (or empty). */
export function targetProblem(input: string): string {
  const url = urlTargetProblem(input);
  if (url !== undefined) return url;
  const text = input.trim().toLowerCase().replace(/\.$/, '');
  if (text === '' || ipv4.test(text)) return text === '0.0.0.0' ? 'the unspecified address cannot be reached' : '';
  if (text.includes(':')) {
    try {
      new URL(`http://[${text}]/`);
      return '';
    } catch {
      return 'not a valid IPv6 address';
    }
  }
  if (/^[\d.]+$/.test(text)) return 'not a valid IPv4 address';
  const labels = text.split('.');
  if (labels.length < 2) return 'an IP address or a fully qualified host name (host.example.net)';
  if (!labels.every((part) => targetLabel.test(part))) return 'host names hold letters, digits, hyphens and underscores between dots';
  return '';
}
