// Host names as DNS, browsers and certificate authorities take them: the checks every role that
// reads a name from a person (certhub's domains, certhub-agent's targets, the setup wizards) shares.
import { domainToASCII, domainToUnicode } from 'node:url';

/** RFC 1035 §2.3.4: a name is at most 253 characters in its usual dotted form. */
export const maxNameLength = 253;
/** RFC 1123 §2.1: letters, digits and hyphens; a digit may start a label; no hyphen at either end. */
const labelPattern = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
/** Why `label` cannot be a host name label, or undefined when it can. */
export function labelProblem(label: string): string | undefined {
  if (label.length === 0) return 'has an empty label';
  if (label.length > 63) return `has a label longer than 63 characters (${label.length})`;
  if (!labelPattern.test(label)) return `has the label "${label}", but labels hold only letters, digits and hyphens, and neither start nor end with a hyphen`;
  // RFC 5891 §4.2.3.1 reserves "??--" for IDNA; certificate authorities refuse every such label but xn--.
  if (label.slice(2, 4) === '--' && !label.startsWith('xn--'))
    return `has the label "${label}", with "--" in its third and fourth characters, which is reserved (only xn-- labels may)`;
  return punycodeProblem(label);
}

/**
 * Why an `xn--` label is not the ASCII form of an international label (RFC 5891 §5.4: it must decode,
 * to something not plain ASCII, and encode back to itself), or undefined.
 */
export function punycodeProblem(label: string): string | undefined {
  if (!label.startsWith('xn--')) return undefined;
  const unicode = domainToUnicode(label);
  if (unicode === '' || unicode === label || !/[\u0080-\u{10ffff}]/u.test(unicode) || domainToASCII(unicode) !== label)
    return `has the label "${label}", which is not a valid xn-- (punycode) label`;
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
