// Valid config files for every loader, and JSON mutations of them: the fuzz of the config loaders
// (test/unit/fuzz-config.test.ts) and of the executables that read them (test/integration/fuzz-config-cli.test.ts).
import fc from 'fast-check';
import type { z } from 'zod';
import { certConfigSchema } from '../../actors/cert/config.js';
import { proxyConfigSchema } from '../../actors/proxy/config.js';
import { sampleConfig } from '../../actors/qpool/cli/sample-config.js';
import { collectFileSchema, serveFileSchema } from '../../actors/qpool/config.js';
import { roles } from '../../actors/registry.js';
import { hostConfigSchema } from '../../src/config/host.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A valid file for each loader, from what the project itself ships or documents. */
export const configLoaders: { name: string; schema: z.ZodType; valid: Json }[] = [
  {
    name: 'outpost host config',
    schema: hostConfigSchema(roles),
    valid: JSON.parse(
      JSON.stringify({
        roles: Object.fromEntries(roles.map((role) => [role.name, role.demoConfig])),
        supervisor: { restart: { max_restarts: 3 } },
        log: { level: 'info' },
      }),
    ) as Json,
  },
  {
    name: 'certhub config.json',
    schema: certConfigSchema({ demo: false }),
    valid: {
      base_domain: 'example.com',
      admin_key: 'cha_0123456789abcdef0123456789abcdef',
      dns: { provider: 'powerdns', server_url: 'http://127.0.0.1:8081', api_token: 'pdns-key', zone: 'example.com.' },
      tls: { domain: 'hub' },
    },
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
export const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('replace' as const), pick: fc.nat(), value: anyJson }),
  fc.record({ kind: fc.constant('remove' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('add' as const), pick: fc.nat(), key: fc.string({ maxLength: 12 }), value: anyJson }),
);

/** `document` with `change` made at one of its paths (chosen by `pick`), as a new document. */
export function mutate(document: Json, change: Mutation): Json {
  const copy = structuredClone(document);
  const paths = pathsOf(copy);
  const path = paths[change.pick % paths.length] ?? [];
  if (path.length === 0) return change.kind === 'replace' ? change.value : copy;
  const parent = path.slice(0, -1).reduce<Json>((node, key) => (node as Record<string | number, Json>)[key] as Json, copy) as
    | Record<string | number, Json>
    | Json[];
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
