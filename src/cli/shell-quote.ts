/** `text` as one shell word, quoted only when it needs to be (for commands printed to copy and paste). */
export function shellQuote(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}
