// The words for the commonest add-form mistakes, shared by the admin API (names.ts refuses with them)
// and the panel (ui/validate.ts shows them as the user types), so both say the same thing.
// Browser-safe: no node: import.

/** What an empty (or blank) name is told. */
export const missingName = 'give a name';
/** What an empty (or blank) target is told. */
export const missingTarget = 'give a target';

/** A scheme and `//` (`http://`, `https://`, `ftp://`): a URL pasted where a host is asked for. */
const urlStart = /^[a-z][a-z0-9+.-]*:\/\//i;

/**
 * Why `input` is a URL rather than a target, with the host to give instead when the URL has one;
 * undefined when it is not a URL.
 */
export function urlTargetProblem(input: string): string | undefined {
  const text = input.trim();
  if (!urlStart.test(text)) return undefined;
  let host = '';
  try {
    host = new URL(text).hostname.replace(/^\[(.*)\]$/, '$1');
  } catch {
    // Not even a URL a browser could open: the rule alone says enough.
  }
  return `a target is an IP address or a host name, not a URL${host === '' ? '' : ` (give ${host})`}`;
}
