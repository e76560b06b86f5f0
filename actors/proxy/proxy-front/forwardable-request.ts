// Whether a client's request head may be forwarded, and the bytes its fields take on the backend leg.
//
// uWS hands the head over decoded as UTF-8 (getUrl, getQuery, forEach): the bytes C4 8A arrive as
// U+010A, whose low byte is LF. Anything that narrowed such a string to bytes one code unit at a time
// would write CR LF into the backend's head and let a client end its request and start another.
// So every part is checked here against RFC 9110/9112's grammar before anything is written:
// - the method is a token; the target (path and query) is visible ASCII;
// - a field name is a token; a field value holds VCHAR, SP, HTAB and obs-text, where obs-text is
//   U+0080-U+00FF: a code unit above U+00FF (and U+FFFD, what uWS makes of bytes that are not UTF-8)
//   is refused with the rest of the request.
// obs-text is forwarded as the bytes the client sent: uWS decoded them from UTF-8 (C3 A9 for U+00E9),
// and the wire form below is those same bytes, one code unit each, so the latin1 writer of the backend
// leg (backend-pool.ts, and Node's http client under the WebSocket leg) puts them back unchanged.
// Pure: the head in, a verdict out.
import { requestFraming, type RequestFraming } from '../../../src/http/request-framing.js';
import { fieldValueVerdict, isToken, isVisibleAscii } from './http-grammar.js';

/** The longest field name a refusal quotes. */
const quotedNameLength = 40;

/**
 * Checks the head and, when it may be forwarded, rewrites each obs-text value of `incoming` (pairs as
 * uWS's forEach gives them: lower-case names) into its wire form in place.
 */
export function forwardableRequest(method: string, target: string, incoming: [string, string][]): RequestFraming {
  if (!isToken(method)) return { ok: false, problem: 'the method is not a token (RFC 9110 section 9)' };
  if (!isVisibleAscii(target)) return { ok: false, problem: 'the request target holds a character that is not visible ASCII' };
  for (const pair of incoming) {
    const [name, value] = pair;
    if (!isToken(name)) return { ok: false, problem: 'a header name is not a token (RFC 9110 section 5.1)' };
    const verdict = fieldValueVerdict(value);
    if (verdict === 'invalid')
      return { ok: false, problem: `the ${name.slice(0, quotedNameLength)} header holds a control character or a character above U+00FF` };
    if (verdict === 'obs-text') pair[1] = Buffer.from(value, 'utf8').toString('latin1');
  }
  return requestFraming(incoming);
}
