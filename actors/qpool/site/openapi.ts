// /api/spec of qpool: OpenAPI 3.1. The record shapes follow actors/qpool/values/record.ts and actors/qpool/pool/protocol.ts; their property
// lists are typed against ValueRecord and PoolStatus so a field added there fails to compile here
// until the document describes it too.
import { operationsPaths } from '../../../src/http/operations-openapi.js';
import { versionPath } from '../../../src/http/version-route.js';
import { type PoolStatus } from '../pool/protocol.js';
import { valueSources, type ValueRecord } from '../values/record.js';

const integer = { type: 'integer', minimum: 0 } as const;
const dateTime = { type: 'string', format: 'date-time' } as const;
const json = 'application/json';
const text = 'text/plain';

const valueRecordProperties: Record<keyof ValueRecord, object> = {
  value: { type: 'string', pattern: '^[0-9a-f]{256}$', description: '1024 bits as exactly 256 lowercase hex characters' },
  timestamp: { ...dateTime, description: 'when the value was collected from the provider, UTC' },
  source: {
    enum: [...valueSources],
    description: '`keyed` or `legacy` (the provider API); `demo` values come from the OS CSPRNG of a beta build and are not quantum',
  },
};

const poolStatusProperties: Record<keyof PoolStatus, object> = {
  available: { ...integer, description: 'values currently in the pool, those the front threads hold ready to serve included' },
  capacity: { ...integer, description: 'pool capacity (`server.max_entries`)' },
  oldest: { ...dateTime, description: 'collection time of the oldest value; absent when the pool is empty' },
  newest: { ...dateTime, description: 'collection time of the newest value (the next one served); absent when the pool is empty' },
  served_total: { ...integer, description: 'values served since the pool was created' },
  last_ingest: { ...dateTime, description: 'when values last arrived over the diode; absent before the first arrival' },
};
const poolStatusRequired: (keyof PoolStatus)[] = ['available', 'capacity', 'served_total'];

/** The four value endpoints differ only in how the one value is written. */
type ValueFormat = 'json' | 'hex' | 'base64' | 'binary';

const emptyText = 'pool empty\n';
const diskText = 'pool could not be committed to disk\n';

function header(description: string, schema: object) {
  return { description, required: true, schema };
}

const headers = {
  'X-Quantum-Timestamp': header('When the value was collected from the provider, ISO 8601 UTC.', dateTime),
  'X-Quantum-Source': header('Where the value came from; `demo` means the OS CSPRNG of a beta build, not quantum.', { enum: [...valueSources] }),
  'X-Quantum-Bits': header('Size of the value in bits; always 1024.', { type: 'integer', const: 1024 }),
  'X-Quantum-Format': header('How the body is written.', { enum: ['json', 'hex', 'base64', 'binary'] satisfies ValueFormat[] }),
  'X-Quantum-Available': header('Values left in the pool after this one was taken (with several front threads: as far as the answering front knows).', integer),
  'Cache-Control': header('Always `no-store`: a value is served once and must not be replayed by a cache, nor a pool figure shown stale.', {
    type: 'string',
    const: 'no-store',
  }),
  'Retry-After': header('Seconds to wait before asking again.', integer),
  'X-Quantum-Demo': {
    description: 'Sent as `1` while the server accepts demo values (OS CSPRNG, not quantum, beta builds only); absent otherwise.',
    required: false,
    schema: { type: 'string', const: '1' },
  },
} as const;

const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });
const valueHeaders = Object.fromEntries(
  ['X-Quantum-Timestamp', 'X-Quantum-Source', 'X-Quantum-Bits', 'X-Quantum-Format', 'X-Quantum-Available', 'Cache-Control'].map((name) => [
    name,
    ref('headers', name),
  ]),
);
const refusalHeaders = { 'Cache-Control': ref('headers', 'Cache-Control'), 'Retry-After': ref('headers', 'Retry-After') };

const responses = {
  NotFound: {
    description: 'No such path.',
    content: { [json]: { schema: ref('schemas', 'Error'), example: { error: 'not found' } } },
  },
  MethodNotAllowed: {
    description: 'The path exists but only answers GET.',
    content: { [json]: { schema: ref('schemas', 'Error'), example: { error: 'method not allowed' } } },
  },
  CrossSite: {
    description: 'A browser marked the request `Sec-Fetch-Site: cross-site`: a page of another site may not take values (nothing is consumed).',
    content: { [json]: { schema: ref('schemas', 'Error'), example: { error: 'cross-site request refused: a page of another site may not take values' } } },
  },
  NoValueJson: {
    description: 'No value was taken: the pool is empty, or it could not be committed to disk (nothing is consumed).',
    headers: refusalHeaders,
    content: {
      [json]: {
        schema: ref('schemas', 'Error'),
        examples: { empty: { value: { error: 'pool empty' } }, disk: { value: { error: 'pool could not be committed to disk' } } },
      },
    },
  },
  // Plain text on purpose: a client reading bytes must never get an error document that looks like a value.
  NoValueText: {
    description:
      'No value was taken: the pool is empty, or it could not be committed to disk (nothing is consumed). Plain text, never JSON, so a client reading bytes cannot mistake it for a value.',
    headers: refusalHeaders,
    content: {
      [text]: {
        schema: { type: 'string', enum: [emptyText, diskText] },
        examples: { empty: { value: emptyText }, disk: { value: diskText } },
      },
    },
  },
};

const valueOperationIds: Record<ValueFormat, string> = { json: 'takeValue', hex: 'takeValueHex', base64: 'takeValueBase64', binary: 'takeValueBinary' };

function valueOperation(format: ValueFormat, summary: string, mediaType: string, schema: object) {
  return {
    get: {
      operationId: valueOperationIds[format],
      tags: ['values'],
      summary,
      description: 'Takes the newest value out of the pool; it is never served again.',
      responses: {
        200: { description: `one value, ${format}`, headers: valueHeaders, content: { [mediaType]: { schema } } },
        403: ref('responses', 'CrossSite'),
        503: ref('responses', format === 'json' ? 'NoValueJson' : 'NoValueText'),
      },
    },
  };
}

function fixedOperation(operationId: string, tag: string, summary: string, mediaType: string, schema: object, extra: object = {}) {
  return { get: { operationId, tags: [tag], summary, responses: { 200: { description: summary, ...extra, content: { [mediaType]: { schema } } } } } };
}

const description = [
  'Quantum random numbers that arrived over a one-way data diode, each 1024 bits, each served exactly once, newest first.',
  '',
  '**There is no authentication**: anyone who can reach the port can drain the pool. Keep `server.listen` on loopback or a trusted network, or behind a reverse proxy.',
  '',
  'Every path answers GET only and takes no request body or query parameters. An unknown path answers 404 and another method 405, both with a JSON `{"error": …}` (components.responses NotFound and MethodNotAllowed).',
].join('\n');

export function qpoolOpenApi(version: string): object {
  return {
    openapi: '3.1.0',
    info: { title: 'qpool', version, description, license: { name: 'MIT', identifier: 'MIT' } },
    tags: [
      { name: 'values', description: 'Each request takes one value out of the pool.' },
      { name: 'pool', description: 'Figures about the pool; nothing is taken.' },
      { name: 'about', description: 'The page, the version and this description.' },
    ],
    paths: {
      '/': fixedOperation('page', 'about', 'Reference page with curl examples and live pool figures', 'text/html', { type: 'string' }),
      '/api/random': valueOperation('json', 'One value as a JSON value record', json, ref('schemas', 'ValueRecord')),
      '/api/random/hex': valueOperation('hex', 'One value as 256 lowercase hex characters and a newline', text, {
        type: 'string',
        pattern: '^[0-9a-f]{256}\\n$',
      }),
      '/api/random/base64': valueOperation('base64', 'One value as base64 of its 128 bytes (172 characters, padded) and a newline', text, {
        type: 'string',
        contentEncoding: 'base64',
        pattern: '^[A-Za-z0-9+/]{171}=\\n$',
      }),
      '/api/random/binary': valueOperation('binary', 'One value as exactly 128 raw bytes, no encoding, no newline', 'application/octet-stream', {
        type: 'string',
        format: 'binary',
        minLength: 128,
        maxLength: 128,
      }),
      '/api/status': fixedOperation('poolStatus', 'pool', 'Pool figures', json, ref('schemas', 'PoolStatus'), {
        headers: { 'X-Quantum-Demo': ref('headers', 'X-Quantum-Demo'), 'Cache-Control': ref('headers', 'Cache-Control') },
      }),
      ...versionPath('qpool', { tags: ['about'] }),
      '/api/spec': fixedOperation('spec', 'about', 'This OpenAPI 3.1 description', json, { type: 'object' }),
      '/api/help': fixedOperation('help', 'about', 'Plain-text help for a terminal', text, { type: 'string' }),
      ...operationsPaths(),
    },
    components: {
      schemas: {
        ValueRecord: { type: 'object', required: Object.keys(valueRecordProperties), properties: valueRecordProperties, additionalProperties: false },
        PoolStatus: { type: 'object', required: poolStatusRequired, properties: poolStatusProperties, additionalProperties: false },
        Error: { type: 'object', required: ['error'], properties: { error: { type: 'string' } } },
      },
      headers,
      responses,
    },
  };
}
