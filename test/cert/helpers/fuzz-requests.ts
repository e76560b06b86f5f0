// fast-check arbitraries of HTTP requests built from an OpenAPI document's operations, then mutated:
// another method, a changed path, wrong types, huge values, unicode, bad percent-escapes, missing
// and repeated fields, bodies that are not JSON or not the declared type, credentials right and wrong.
import fc from 'fast-check';
import type { JsonSchema, Operation } from '../../helpers/fuzz-openapi.js';

export interface FuzzRequest {
  method: string;
  /** Request target: path and query, every byte valid on the wire (unicode percent-encoded). */
  target: string;
  headers: Record<string, string>;
  body: string | undefined;
}

export interface FuzzOptions {
  /** Named header sets that prove (or fail to prove) who sends: `{}` for none, the right key, a wrong one... */
  credentials: Record<string, Record<string, string>>;
  /** Values a path parameter may take that name something the server has (a domain label), so the happy path is reached too. */
  knownParameters?: readonly string[];
}

const methods = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/** Percent-escapes a decoder must refuse or read right: truncated, not hex, overlong UTF-8, NUL, an encoded slash, dot segments. */
const trickySegments = ['%', '%zz', '%E0%A4%A', '%C0%80', '%FF%FE', '%00', '%2F', '%2e%2e', '..', '.', '%25', '%u2603', '%F0%9F%98%80', 'a%20b', '~', "'", '*'];

const unicodeText = fc.string({ unit: 'grapheme', maxLength: 24 });
/**
 * Any code point but a surrogate, what fast-check's unit 'binary' draws. That unit cost 1.5 s of CPU
 * in every file importing this one: fast-check maps all 1.1 million code points back to indexes to
 * cut its dangerous strings (`__proto__`, ...) into units; this unmapper does it per character.
 */
const surrogates = 0x800;
const anyCodePoint = fc.integer({ min: 0, max: 0x10ffff - surrogates }).map(
  (index) => String.fromCodePoint(index < 0xd800 ? index : index + surrogates),
  (unit) => {
    const code = typeof unit === 'string' ? unit.codePointAt(0) : undefined;
    if (code === undefined || String.fromCodePoint(code) !== unit || (code >= 0xd800 && code <= 0xdfff)) throw new Error('not one code point');
    return code < 0xd800 ? code : code - surrogates;
  },
);
const anyText = fc.oneof(fc.string({ maxLength: 24 }), unicodeText, fc.string({ unit: anyCodePoint, maxLength: 12 }));
/** A long value without the cost of generating every character. */
const hugeText = fc.tuple(fc.constantFrom('a', '€', '😀', '\u0000', '"'), fc.integer({ min: 1_000, max: 80_000 })).map(([unit, count]) => unit.repeat(count));

/** Encodes what is not an unreserved character; lone surrogates (which encodeURIComponent refuses) become a raw bad escape. */
function encode(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return `%ED%A0%80${encodeURIComponent(text.replace(/[\uD800-\uDFFF]/g, ''))}`;
  }
}

function segment(known: readonly string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: known.length > 0 ? fc.constantFrom(...known) : fc.constant('name') },
    { weight: 3, arbitrary: anyText.filter((text) => text.length > 0).map(encode) },
    { weight: 2, arbitrary: fc.constantFrom(...trickySegments) },
    // Long, yet short enough that a path of three of them with its query and headers stays within
    // uWebSockets.js's 4 KiB request head: past it uWS answers 431 itself, before any route (the
    // manuals say so), so such a request tests uWS, not the server's routes.
    { weight: 1, arbitrary: fc.integer({ min: 200, max: 1_000 }).map((count) => 'x'.repeat(count)) },
  );
}

/** A value of `schema`, as a well-behaved client would send it. */
export function valueOf(schema: JsonSchema | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (schema === undefined || depth > 4) return fc.jsonValue({ maxDepth: 1 });
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  if ('const' in schema) return fc.constant(schema.const);
  switch (schema.type) {
    case 'string':
      return fc.oneof(fc.string({ maxLength: 16 }), fc.stringMatching(/^[a-z][a-z0-9-]{0,10}$/), fc.ipV4(), fc.domain());
    case 'integer':
      return fc.integer({ min: typeof schema.minimum === 'number' ? schema.minimum : -10, max: typeof schema.maximum === 'number' ? schema.maximum : 10_000 });
    case 'number':
      return fc.double({ noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(valueOf(schema.items as JsonSchema | undefined, depth + 1), { maxLength: 4 });
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
      if (Object.keys(properties).length === 0) return fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 });
      const record = Object.fromEntries(Object.entries(properties).map(([name, property]) => [name, valueOf(property, depth + 1)]));
      return fc.record(record, { requiredKeys: (schema.required as string[] | undefined) ?? [] });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** The JSON text of a body: the schema's value, or that value broken in one way. */
function bodyText(schema: JsonSchema | undefined): fc.Arbitrary<string> {
  const good = valueOf(schema ?? { type: 'object' });
  const fields = Object.keys(schema?.properties ?? {});
  const field = fields.length > 0 ? fc.constantFrom(...fields) : fc.string({ maxLength: 8 });
  return fc.oneof(
    { weight: 4, arbitrary: good.map((value) => JSON.stringify(value)) },
    // A field of the wrong type (a number, an object, null, a huge or unicode string).
    {
      weight: 3,
      arbitrary: fc
        .tuple(good, field, fc.oneof(fc.jsonValue({ maxDepth: 3 }), hugeText, unicodeText))
        .map(([value, name, wrong]) => JSON.stringify(replaceField(value, name, wrong))),
    },
    // A required field missing.
    { weight: 2, arbitrary: fc.tuple(good, field).map(([value, name]) => JSON.stringify(replaceField(value, name, undefined))) },
    // A field given twice, the second of another type.
    {
      weight: 2,
      arbitrary: fc.tuple(good, field, fc.jsonValue({ maxDepth: 1 })).map(([value, name, again]) => appendField(JSON.stringify(value), name, again)),
    },
    // Not the declared type at the top, or not JSON at all.
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value)) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '',
        '{',
        '{"a":',
        'null',
        '[]',
        '"\\ud800"',
        '{"key":"\\u0000"}',
        '\u00ff\u00fe',
        'key=value',
        '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[',
      ),
    },
    { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 20_000 }).map((depth) => `${'['.repeat(depth)}${']'.repeat(depth)}`) },
    { weight: 1, arbitrary: hugeText.map((text) => JSON.stringify({ [fields[0] ?? 'key']: text })) },
  );
}

function replaceField(value: unknown, name: string, replacement: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const copy: Record<string, unknown> = { ...value };
  if (replacement === undefined) delete copy[name];
  else copy[name] = replacement;
  return copy;
}

/** `{"a":1}` + `b`, 2 -> `{"a":1,"b":2}` written as text, so a key already there appears twice. */
function appendField(text: string, name: string, value: unknown): string {
  if (!text.startsWith('{') || text === '{}') return text;
  return `${text.slice(0, -1)},${JSON.stringify(name)}:${JSON.stringify(value) ?? 'null'}}`;
}

function query(operation: Operation): fc.Arbitrary<string> {
  const documented = operation.queryParameters.map((parameter) =>
    fc.oneof(
      valueOf(parameter.schema).map((value) => `${parameter.name}=${encode(String(value))}`),
      anyText.map((text) => `${parameter.name}=${encode(text)}`),
      fc.constantFrom('-1', '1e3', '99999999999999999999', '0x10', '', '%zz', '1.5').map((raw) => `${parameter.name}=${raw}`),
    ),
  );
  const extra = fc.tuple(anyText, anyText).map(([name, value]) => `${encode(name)}=${encode(value)}`);
  return fc
    .array(fc.oneof(...documented, extra, fc.constantFrom('%', '&&', '=', 'a=%zz')), { maxLength: 4 })
    .map((pairs) => (pairs.length === 0 ? '' : `?${pairs.join('&')}`));
}

function path(operation: Operation, known: readonly string[]): fc.Arbitrary<string> {
  const filled = fc.tuple(...operation.pathParameters.map(() => segment(known))).map((values) => {
    let index = 0;
    return operation.template.replace(/\{[^}]+\}/g, () => values[index++] ?? '');
  });
  return fc.oneof(
    { weight: 8, arbitrary: filled },
    { weight: 1, arbitrary: fc.tuple(filled, segment(known)).map(([base, more]) => `${base}/${more}`) },
    { weight: 1, arbitrary: filled.map((base) => `${base}/`) },
    { weight: 1, arbitrary: filled.map((base) => base.replace(/\/([^/]*)$/, '//$1')) },
    { weight: 1, arbitrary: filled.map((base) => base.toUpperCase()) },
  );
}

const printable = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)), maxLength: 40 });

function headers(options: FuzzOptions, withBody: boolean): fc.Arbitrary<Record<string, string>> {
  const names = Object.keys(options.credentials);
  const credential = fc.constantFrom(...names).map((name) => options.credentials[name] ?? {});
  const contentType = fc.constantFrom(
    'application/json',
    'application/json; charset=utf-8',
    'APPLICATION/JSON',
    'text/plain',
    'application/x-www-form-urlencoded',
    '',
    'application/json; charset=latin1',
  );
  const extra = fc.oneof(
    fc.constant({}),
    printable.map((value) => ({ authorization: value })),
    printable.map((value) => ({ authorization: `Bearer ${value}` })),
    printable.map((value) => ({ cookie: `certhub_session=${value}` })),
    printable.map((value) => ({ origin: value })),
    fc.constantFrom(
      { origin: 'http://evil.test' },
      { 'x-forwarded-for': '203.0.113.9, ::1' },
      { accept: 'text/event-stream' },
      { 'last-event-id': 'x' },
      { 'if-none-match': '*' },
    ),
    printable.map((value) => ({ 'x-fuzz': value })),
  );
  return fc
    .tuple(credential, withBody ? contentType.map((type) => (type === '' ? {} : { 'content-type': type })) : fc.constant({}), extra)
    .map(([a, b, c]) => ({ ...a, ...b, ...c }));
}

/** One request built from one of `operations`, sometimes sent with another method. */
export function requestArbitrary(operations: readonly Operation[], options: FuzzOptions): fc.Arbitrary<FuzzRequest> {
  const known = options.knownParameters ?? [];
  return fc.constantFrom(...operations).chain((operation) => {
    const method = fc.oneof({ weight: 6, arbitrary: fc.constant(operation.method) }, { weight: 1, arbitrary: fc.constantFrom(...methods) });
    return method.chain((chosen) => {
      const withBody = chosen !== 'GET' && chosen !== 'HEAD';
      const body = withBody ? fc.option(bodyText(operation.jsonBody), { nil: undefined, freq: 6 }) : fc.constant(undefined);
      return fc.record({
        method: fc.constant(chosen),
        target: fc.tuple(path(operation, known), query(operation)).map(([p, q]) => p + q),
        headers: headers(options, withBody),
        body,
      });
    });
  });
}
