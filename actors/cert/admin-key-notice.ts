// How the admin key is shown at start: in full to a person at a terminal, and otherwise only where it
// is kept and how it starts, so a service's journal, a redirected log file and the log shippers that
// read them never hold the key.

/**
 * Characters of the key shown when it is not written to a terminal: the `cha_` of a generated key and
 * two more (12 bits of its 256), enough to tell two keys apart, far too few to shorten a guess.
 */
export const shownKeyCharacters = 6;

/** The text after `admin key: `: the key itself for a terminal, else the file holding it and its first characters. */
export function adminKeyNotice(adminKey: string, configPath: string, toTerminal: boolean): string {
  return toTerminal ? adminKey : `in ${configPath} (starts ${adminKey.slice(0, shownKeyCharacters)}…)`;
}
