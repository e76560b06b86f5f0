// Every config loader under JSON mutations (issue 28 item 2): a valid config with one value replaced
// by any JSON, a key removed or an unknown key added is either accepted or refused with a
// ConfigError whose every problem names an option path and a rule; never another error.
import assert from 'node:assert/strict';
import test from 'ava';
import fc from 'fast-check';
import type { z } from 'zod';
import { certConfigSchema } from '../../actors/cert/config.js';
import { proxyConfigSchema } from '../../actors/proxy/config.js';
import { sampleConfig } from '../../actors/qpool/cli/sample-config.js';
import { collectFileSchema, serveFileSchema } from '../../actors/qpool/config.js';
import { roles } from '../../actors/registry.js';
import { hostConfigSchema } from '../../src/config/host.js';
import { parseConfigJson } from '../../src/config/json-text.js';
import { validateConfig } from '../../src/config/load.js';
import { ConfigError } from '../../src/errors.js';
import { checkProperty } from '../helpers/fuzz.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A valid file for each loader, from what the project itself ships or documents. */
const loaders: { name: string; schema: z.ZodType; valid: Json }[] = [
  {
    name: 'outpost host config',
    schema: hostConfigSchema(roles),
    valid: JSON.parse(JSON.stringify({ roles: Object.fromEntries(roles.map((role) => [role.name, role.demoConfig])), supervisor: { restart: { max_restarts: 3 } }, log: { level: 'info' } })) as Json,
  },
  {
    name: 'certhub config.json',
    schema: certConfigSchema({ demo: false }),
    valid: { base_domain: 'example.com', admin_key: 'cha_0123456789abcdef0123456789abcdef', dns: { provider: 'powerdns', server_url: 'http://127.0.0.1:8081', api_token: 'pdns-key', zone: 'example.com.' }, tls: { domain: 'hub' } },
  },
  { name: 'qpool serve file', schema: serveFileSchema, valid: JSON.parse(JSON.stringify(sampleConfig())) as Json },
  { name: 'qpool collect file', schema: collectFileSchema, valid: JSON.parse(JSON.stringify(sampleConfig())) as Json },
  {
    name: 'certhub-agent proxy file',
    schema: proxyConfigSchema,
    valid: JSON.parse(JSON.stringify(roles.find((role) => role.name === 'proxy')?.demoConfig ?? {})) as Json,
  },
];

type Path = (string | number)[];

/** Every path to a value in `value`, the root included. */
function pathsOf(value: Json, at: Path = []): Path[] {
  if (Array.isArray(value)) return [at, ...value.flatMap((member, index) => pathsOf(member, [...at, index]))];
  if (typeof value === 'object' && value !== null) return [at, ...Object.entries(value).flatMap(([key, member]) => pathsOf(member, [...at, key]))];
  return [at];
}

type Mutation = { kind: 'replace'; pick: number; value: Json } | { kind: 'remove'; pick: number } | { kind: 'add'; pick: number; key: string; value: Json };

const anyJson = fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json>;
const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('replace' as const), pick: fc.nat(), value: anyJson }),
  fc.record({ kind: fc.constant('remove' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('add' as const), pick: fc.nat(), key: fc.string({ maxLength: 12 }), value: anyJson }),
);

/** `document` with `change` made at one of its paths (chosen by `pick`), as a new document. */
function mutate(document: Json, change: Mutation): Json {
  const copy = structuredClone(document);
  const paths = pathsOf(copy);
  const path = paths[change.pick % paths.length] ?? [];
  if (path.length === 0) return change.kind === 'replace' ? change.value : copy;
  const parent = path.slice(0, -1).reduce<Json>((node, key) => (node as Record<string | number, Json>)[key] as Json, copy) as Record<string | number, Json> | Json[];
  const key = path.at(-1) as string | number;
  if (change.kind === 'replace') (parent as Record<string | number, Json>)[key] = change.value;
  else if (change.kind === 'remove') {
    if (Array.isArray(parent)) parent.splice(key as number, 1);
    else delete parent[key];
  } else {
    const target = (parent as Record<string | number, Json>)[key];
    if (typeof target === 'object' && target !== null && !Array.isArray(target)) target[change.key] = change.value;
  }
  return copy;
}

/** A problem names where (an option path, or the config as a whole) and what is wrong, in one line without a stack. */
const problemShape = /^(the config|[A-Za-z_][\w-]*|\[\d+\]|\[".*?"\])(\.[A-Za-z_][\w-]*|\[\d+\]|\[".*?"\])* (is|must|cannot|has|names|needs|and|does|are|was) ./;

for (const { name, schema, valid } of loaders) {
  test(`${name}: the valid file is accepted`, (t) => {
    t.notThrows(() => validateConfig(schema, valid));
  });

  test(`${name}: one to three mutations are accepted, or refused naming an option path and a rule`, (t) => {
    checkProperty(
      t,
      fc.property(fc.array(mutation, { minLength: 1, maxLength: 3 }), (changes) => {
        const document = changes.reduce(mutate, valid);
        try {
          validateConfig(schema, document);
        } catch (error) {
          assert.ok(error instanceof ConfigError, `${String(error)} for ${JSON.stringify(document)}`);
          assert.ok(error.problems.length > 0);
          for (const problem of error.problems.flatMap((text) => text.split('\n'))) {
            assert.match(problem, problemShape, `for ${JSON.stringify(document)}`);
            assert.doesNotMatch(problem, /\n\s+at |\[object Object\]|undefined/, problem);
          }
        }
      }),
      400,
    );
  });
}

test('config text of any kind is JSON or refused with the line and column of the fault', (t) => {
  checkProperty(
    t,
    fc.property(fc.oneof(fc.string({ maxLength: 200 }), fc.json().map((text) => text.slice(0, Math.max(0, text.length - 1)))), (text) => {
      try {
        parseConfigJson(text, 'host.json');
      } catch (error) {
        assert.ok(error instanceof ConfigError);
        assert.match(error.problems[0] ?? '', /^host\.json is not valid JSON \(line \d+, column \d+\): \S/);
      }
    }),
    500,
  );
});
