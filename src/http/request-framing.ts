// Whether a client's request head may be read (by the generic front) or forwarded (by the proxy), and
// how long its body is (RFC 9112 section 6.3).
// uWS's own parser already refuses Content-Length with Transfer-Encoding, a Content-Length with a
// sign, a list or inner spaces, obsolete line folding and control bytes other than DEL (it closes the
// connection or answers 400; test/proxy/integration/hostile-clients.test.ts tries each against the real
// listener). What it lets through, this refuses: two Content-Lengths (it reads the first), a
// Transfer-Encoding that is not exactly `chunked` (it reads `xchunked`, `CHUNKED` or `chunked,
// identity` as no body and parses the body as the next request), two Hosts, and DEL in a value.
// Pure: the header list in, a verdict out.
import type { HttpRequest } from 'uWebSockets.js';

export type RequestFraming =
  /** The body as the proxy forwards it: `length` bytes with its own Content-Length, or chunked. */
  | { ok: true; body: { kind: 'none' } | { kind: 'length'; length: number } | { kind: 'chunked' } }
  /** Why the request is refused with 400 and its connection closed. */
  | { ok: false; problem: string };

/** A field value holds visible characters, spaces and tabs only (RFC 9110 section 5.5): no other C0 control, no DEL. */
function hasControlCharacter(value: string): boolean {
  for (let index = 0; index < value.length; index++) {
    const code = value.charCodeAt(index);
    if ((code < 0x20 && code !== 0x09) || code === 0x7f) return true;
  }
  return false;
}

/** `incoming`: the head as uWS hands it over (names lower case, every repeated field kept). */
export function requestFraming(incoming: readonly (readonly [string, string])[]): RequestFraming {
  const lengths: string[] = [];
  const codings: string[] = [];
  let hosts = 0;
  for (const [name, value] of incoming) {
    if (hasControlCharacter(value)) return { ok: false, problem: `the ${name} header holds a control character` };
    if (name === 'content-length') lengths.push(value.trim());
    else if (name === 'transfer-encoding') codings.push(value.trim());
    else if (name === 'host') hosts++;
  }
  if (hosts > 1) return { ok: false, problem: 'more than one Host header' };
  if (lengths.length > 0 && codings.length > 0) return { ok: false, problem: 'both Content-Length and Transfer-Encoding' };
  if (codings.length > 0) {
    // Only `chunked` alone is read as chunked by the listener: anything else would leave the body to be parsed as the next request.
    if (codings.length > 1 || codings[0] !== 'chunked') return { ok: false, problem: 'a Transfer-Encoding other than chunked' };
    return { ok: true, body: { kind: 'chunked' } };
  }
  if (lengths.length > 1) return { ok: false, problem: 'more than one Content-Length header' };
  if (lengths.length === 0) return { ok: true, body: { kind: 'none' } };
  const text = lengths[0]!;
  if (!/^\d{1,15}$/.test(text)) return { ok: false, problem: 'a Content-Length that is not a decimal number' };
  return { ok: true, body: { kind: 'length', length: Number(text) } };
}

/** Why a request head is refused, read off uWS's request (one pass over its headers); undefined when it may be read. */
export function headProblem(req: HttpRequest): string | undefined {
  const incoming: [string, string][] = [];
  req.forEach((name, value) => incoming.push([name, value]));
  const framing = requestFraming(incoming);
  return framing.ok ? undefined : framing.problem;
}
