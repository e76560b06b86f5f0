// The characters each part of an HTTP/1.1 message may hold (RFC 9110 section 5.1 and 5.5, RFC 9112
// section 3), checked on code units: what the proxy reads from either side and writes to the other
// passes through here, so no byte that means CR, LF or NUL on the wire reaches a peer inside a value.

/** tchar (RFC 9110 section 5.6.2): the characters of a method and a field name. */
const tokenCharacters = new Uint8Array(128);
for (const character of "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") tokenCharacters[character.charCodeAt(0)] = 1;

/** A method or field name: one or more tchar. */
export function isToken(text: string): boolean {
  if (text.length === 0) return false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code >= 128 || tokenCharacters[code] === 0) return false;
  }
  return true;
}

/** A request target as it may be forwarded: visible ASCII only (VCHAR, RFC 5234), no space, no control, nothing above 0x7E. */
export function isVisibleAscii(text: string): boolean {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x21 || code > 0x7e) return false;
  }
  return true;
}

/** How a field value measures against field-value = *( VCHAR / SP / HTAB / obs-text ). */
export type FieldValueVerdict = 'ascii' | 'obs-text' | 'invalid';

/**
 * `ascii`: VCHAR, SP and HTAB only; `obs-text`: some code units are U+0080-U+00FF as well; `invalid`: a
 * control character (CR, LF and NUL among them), DEL, or a code unit above U+00FF.
 */
export function fieldValueVerdict(value: string): FieldValueVerdict {
  let verdict: FieldValueVerdict = 'ascii';
  for (let index = 0; index < value.length; index++) {
    const code = value.charCodeAt(index);
    if (code >= 0x20 && code < 0x7f) continue;
    if (code === 0x09) continue;
    if (code >= 0x80 && code <= 0xff) verdict = 'obs-text';
    else return 'invalid';
  }
  return verdict;
}

/**
 * A value read from a peer's bytes (one code unit a byte): `breaks-line` when it carries CR, LF or NUL,
 * which would end or cut the line it is written on; `obs-text` when it has bytes 0x80-0xFF.
 */
export function peerValueVerdict(value: string): 'ascii' | 'obs-text' | 'breaks-line' {
  let verdict: 'ascii' | 'obs-text' = 'ascii';
  for (let index = 0; index < value.length; index++) {
    const code = value.charCodeAt(index);
    if (code === 0x0d || code === 0x0a || code === 0x00) return 'breaks-line';
    if (code >= 0x80) verdict = 'obs-text';
  }
  return verdict;
}

/** Without the blanks (SP, HTAB) around it: OWS, RFC 9110 section 5.6.3. String's trim() would take NBSP (byte 0xA0), CR and LF as well. */
export function withoutBlanks(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && (text.charCodeAt(start) === 0x20 || text.charCodeAt(start) === 0x09)) start++;
  while (end > start && (text.charCodeAt(end - 1) === 0x20 || text.charCodeAt(end - 1) === 0x09)) end--;
  return start === 0 && end === text.length ? text : text.slice(start, end);
}
