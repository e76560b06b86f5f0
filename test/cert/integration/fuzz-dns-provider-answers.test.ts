// The answers of the DNS providers' HTTP APIs, made garbage: garbage-layer.ts, in
// front of the Cloudflare double or of PowerDNS, replaces answers with text that is not JSON, JSON of
// another shape, a value deep in the real answer retyped, HTML, a body cut short or without end, an
// odd status. Property: each provider call either fails with a DNS OutpostError whose reason is one
// readable line without the API token, or completes having done what it does against an honest API
// (the garbage left the call's outcome alone: an answer the call does not read, or one it reads the
// same); never a call that completes with a wrong outcome. The process stays up.
import assert from 'node:assert/strict';
import test from 'ava';
import fc from 'fast-check';
import { createDnsProvider } from '../../../actors/cert/dns/providers/create.js';
import type { DnsProvider, DnsRecord } from '../../../actors/cert/dns/providers/provider.js';
import { OutpostError } from '../../../src/errors.js';
import { startPowerDns } from '../../../benchmarks/third-party/powerdns.js';
import { startCloudflareDouble } from '../fixtures/cloudflare/cloudflare-double.js';
import { startGarbageLayer, type ApiGarbage, type GarbageLayer } from '../fixtures/garbage-api/garbage-layer.js';
import { checkAsyncProperty } from '../../helpers/fuzz.js';

const readableLength = 1500;
const operations = ['addTxt', 'removeTxt', 'list', 'setAddress', 'removeAddress'] as const;
type Operation = (typeof operations)[number];

const odd = fc.oneof(fc.constant(null), fc.integer(), fc.boolean(), fc.string({ maxLength: 12 }), fc.array(fc.integer(), { maxLength: 2 }), fc.constant({}));
export const apiGarbage: fc.Arbitrary<ApiGarbage> = fc.oneof(
  fc.record({
    kind: fc.constant('json' as const),
    json: fc.oneof(odd, fc.jsonValue({ maxDepth: 3 }), fc.constant({ success: true }), fc.constant({ success: true, result: [null, 7] })),
  }),
  { arbitrary: fc.record({ kind: fc.constant('retyped' as const), path: fc.array(fc.nat(), { maxLength: 5 }), value: odd }), weight: 4 },
  fc.record({ kind: fc.constant('html' as const), status: fc.constantFrom(200, 500, 502, 503) }),
  fc.record({ kind: fc.constant('cut' as const), keep: fc.nat() }),
  fc.record({ kind: fc.constant('status' as const), status: fc.constantFrom(200, 201, 204, 301, 400, 401, 404, 409, 422, 429, 500) }),
);

/** What a call is given: `name` has the TXT `fuzz-value` at `_acme-challenge.<name>` and the address 192.0.2.1; addTxt adds `fuzz-added`. */
async function call(provider: DnsProvider, operation: Operation, name: string): Promise<DnsRecord[] | undefined> {
  switch (operation) {
    case 'addTxt':
      return void (await provider.addTxt(`_acme-challenge.${name}`, 'fuzz-added'));
    case 'removeTxt':
      return void (await provider.removeTxt(`_acme-challenge.${name}`, 'fuzz-value'));
    case 'list':
      return provider.list(name);
    case 'setAddress':
      return void (await provider.setAddress(name, '192.0.2.7'));
    case 'removeAddress':
      return void (await provider.removeAddress(name));
    default:
      throw new Error(`unknown operation ${String(operation satisfies never)}`);
  }
}

function assertReadable(error: unknown, secret: string, context: string): void {
  assert.ok(error instanceof OutpostError, `${context}: not an OutpostError: ${error instanceof Error ? error.stack : String(error)}`);
  assert.match(error.code, /^ERR_DNS_/, context);
  assert.ok(error.message.length <= readableLength, `${context}: a reason of ${error.message.length} characters`);
  assert.doesNotMatch(error.message, /\n\s+at /, `${context}: a stack trace in the reason`);
  assert.ok(!error.message.includes(secret), `${context}: the API token in the reason`);
}

function recordTexts(records: readonly DnsRecord[]): string[] {
  return records.map((record) => `${record.name} ${record.type} ${record.content} ${record.ttl}`).sort();
}

/** A call that completed on garbage did what it does against an honest API: read back with the garbage off. */
async function assertHonestOutcome(provider: DnsProvider, operation: Operation, name: string, listed: DnsRecord[] | undefined, context: string): Promise<void> {
  const atName = await provider.list(name);
  const addresses = atName.filter((record) => record.type !== 'TXT').map((record) => `${record.type} ${record.content}`);
  const txt = (await provider.list(`_acme-challenge.${name}`)).filter((record) => record.type === 'TXT').map((record) => record.content);
  const completed = `${context}: completed`;
  switch (operation) {
    case 'addTxt':
      return assert.deepEqual(txt.sort(), ['fuzz-added', 'fuzz-value'], `${completed}, and the TXT values are not both values`);
    case 'removeTxt':
      return assert.deepEqual(txt, [], `${completed}, and the TXT value is still there`);
    case 'list':
      return assert.deepEqual(recordTexts(listed ?? []), recordTexts(atName), `${completed}, and listed other records than the API holds`);
    case 'setAddress':
      return assert.deepEqual(addresses, ['A 192.0.2.7'], `${completed}, and the address is not the one set`);
    case 'removeAddress':
      return assert.deepEqual(addresses, [], `${completed}, and an address is left`);
    default:
      throw new Error(`unknown operation ${String(operation satisfies never)}`);
  }
}

interface Api {
  layer: GarbageLayer;
  zone: string;
  secret: string;
  provider(): DnsProvider;
  stop(): Promise<void>;
}

async function startApi(kind: 'cloudflare' | 'powerdns'): Promise<Api> {
  const powerdns = await startPowerDns();
  if (kind === 'powerdns') {
    const layer = await startGarbageLayer(powerdns.apiUrl);
    return {
      layer,
      zone: powerdns.zone,
      secret: powerdns.apiKey,
      provider: () => createDnsProvider({ provider: 'powerdns', server_url: layer.url, api_token: powerdns.apiKey, zone: powerdns.zone }),
      stop: async () => {
        await layer.close();
        await powerdns.stop();
      },
    };
  }
  const cloudflare = await startCloudflareDouble({ zone: powerdns.zone, powerdns });
  const layer = await startGarbageLayer(cloudflare.apiUrl);
  return {
    layer,
    zone: powerdns.zone,
    secret: cloudflare.token,
    provider: () => createDnsProvider({ provider: 'cloudflare', api_token: cloudflare.token, zone_id: cloudflare.zoneId, api_url: layer.url }),
    stop: async () => {
      await layer.close();
      await cloudflare.close();
      await powerdns.stop();
    },
  };
}

const property = test.macro({
  async exec(t, kind: 'cloudflare' | 'powerdns') {
    const api = await startApi(kind);
    let count = 0;
    let failed = 0;
    try {
      const run = fc.asyncProperty(
        fc.constantFrom(...operations),
        apiGarbage,
        fc.option(fc.constantFrom(['GET'], ['POST', 'PATCH', 'PUT', 'DELETE']), { nil: undefined }),
        async (operation, garbage, methods) => {
          count += 1;
          const name = `fuzz${count}.${api.zone}`;
          // Something to read and change: a TXT and an address written while the API answers honestly.
          api.layer.garbage = undefined;
          const honest = api.provider();
          await honest.addTxt(`_acme-challenge.${name}`, 'fuzz-value');
          await honest.setAddress(name, '192.0.2.1');
          api.layer.garbage = { garbage, ...(methods === undefined ? {} : { methods }) };
          const context = `${operation} ${methods?.join(',') ?? 'all'} ${JSON.stringify(garbage)}`;
          let listed: DnsRecord[] | undefined;
          try {
            listed = await call(api.provider(), operation, name);
          } catch (error) {
            assertReadable(error, api.secret, context);
            failed += 1;
            return;
          } finally {
            api.layer.garbage = undefined;
          }
          await assertHonestOutcome(api.provider(), operation, name, listed, context);
        },
      );
      await checkAsyncProperty(t, run, 120, { shrink: false });
      t.true(api.layer.replaced > 0, 'garbage was answered');
      t.log(`${count} calls: ${failed} failed with a provider error, ${count - failed} completed with an honest outcome`);
    } finally {
      await api.stop();
    }
  },
  title: (title = '', kind: 'cloudflare' | 'powerdns') => `${kind}: ${title}`,
});

test('an API answering garbage gives a readable provider error, never a crash or a TypeError', property, 'cloudflare');
test('an API answering garbage gives a readable provider error, never a crash or a TypeError', property, 'powerdns');

test('an answer without end is not read past the bound: the call fails with the provider named', async (t) => {
  const api = await startApi('cloudflare');
  try {
    api.layer.garbage = { garbage: { kind: 'huge', bytes: 64 * 1024 * 1024 } };
    const error = await t.throwsAsync(api.provider().list(`big.${api.zone}`));
    t.notThrows(() => assertReadable(error, api.secret, 'huge'));
    t.regex(error?.message ?? '', /^cloudflare: the answer is larger than \d+ bytes$/);
  } finally {
    await api.stop();
  }
});

// Cases the property found (seed 2028 unless said), kept as examples checked on every run: each is an
// answer that ends in a TypeError unless the provider checks its shape.
const refusedCall = test.macro(
  async (t, kind: 'cloudflare' | 'powerdns', operation: Operation, garbage: ApiGarbage, methods: readonly string[] | undefined, reason: RegExp) => {
    const api = await startApi(kind);
    try {
      const name = `regression.${api.zone}`;
      await api.provider().setAddress(name, '192.0.2.1');
      api.layer.garbage = { garbage, ...(methods === undefined ? {} : { methods }) };
      const error = await t.throwsAsync(call(api.provider(), operation, name));
      t.notThrows(() => assertReadable(error, api.secret, operation));
      t.regex(error?.message ?? '', reason);
    } finally {
      await api.stop();
    }
  },
);

test(
  "cloudflare: a record listing whose entries are not records is the provider's error (seed 2028)",
  refusedCall,
  'cloudflare',
  'setAddress',
  { kind: 'retyped', path: [142321133], value: [976493353, -1148004028] },
  ['GET'],
  /^cloudflare: a record listing has entries that are not DNS records$/,
);
test(
  'cloudflare: a refusal whose errors are not a list is described, not a TypeError (a neighbour of the case above)',
  refusedCall,
  'cloudflare',
  'list',
  { kind: 'json', json: { success: false, errors: 5 } },
  undefined,
  /^cloudflare: the change was refused \(HTTP 200, \{"success":false,"errors":5\}\)$/,
);
test(
  "powerdns: a zone answer that is null is the provider's error (seed 2028)",
  refusedCall,
  'powerdns',
  'setAddress',
  { kind: 'retyped', path: [], value: null },
  ['GET'],
  /^powerdns: the zone's answer is not a list of RRsets: null$/,
);
test(
  "powerdns: a zone answer without RRsets is the provider's error, not an empty zone whose address is left in place (seed 2028)",
  refusedCall,
  'powerdns',
  'removeAddress',
  { kind: 'json', json: { i9: '@35', SnaI: false } },
  ['GET'],
  /^powerdns: the zone's answer is not a list of RRsets: \{"i9":"@35","SnaI":false\}$/,
);
