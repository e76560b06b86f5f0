import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { z } from 'zod';
import { roles } from '../../actors/registry.js';
import { hostConfigSchema as hostConfigSchemaFor } from '../../src/config/host.js';

const hostConfigSchema = hostConfigSchemaFor(roles);
import { loadConfigFile, validateConfig } from '../../src/config/load.js';
import { ConfigError } from '../../src/errors.js';

function problemsOf(schema: z.ZodType, input: unknown): readonly string[] {
  const error = (() => {
    try {
      validateConfig(schema, input);
    } catch (caught) {
      return caught;
    }
    return undefined;
  })();
  if (!(error instanceof ConfigError)) throw new Error('expected a ConfigError');
  return error.problems;
}

test('each problem names its option path and rule', (t) => {
  const problems = problemsOf(hostConfigSchema, {
    roles: { monitor: {} },
    supervisor: { ready_timeout_ms: 0, restart: { max_restarts: 'many' } },
    log: { level: 'loud' },
  });
  t.true(problems.includes('supervisor.ready_timeout_ms must be at least 1'));
  t.true(problems.includes('supervisor.restart.max_restarts must be a number'));
  t.true(problems.includes('log.level must be one of "error", "warn", "info", "debug"'));
});

test('unknown keys are reported with a suggestion', (t) => {
  const problems = problemsOf(hostConfigSchema, { roles: { monitor: {} }, supervisr: {}, supervisor: { restart: { max_restart: 2 } } });
  t.true(problems.includes('supervisr is not a known option (did you mean supervisor?)'));
  t.true(problems.includes('supervisor.restart.max_restart is not a known option (did you mean max_restarts?)'));
});

test('a role without what it needs is a clear error, and so is naming none', (t) => {
  t.true(problemsOf(hostConfigSchema, { roles: { cert: {} } }).some((problem) => /^roles\.cert\.data_dir is required/.test(problem)));
  t.deepEqual(problemsOf(hostConfigSchema, { roles: {} }), ['roles must name at least one role (cert, proxy, speedtest, monitor, send, recv)']);
  t.deepEqual(problemsOf(hostConfigSchema, []), ['the config must be an object']);
});

test('a valid config is returned with defaults filled in, frozen', (t) => {
  const schema = z.strictObject({ server: z.strictObject({ port: z.number().int().default(8080) }).default({ port: 8080 }) });
  const config = validateConfig(schema, {});
  t.deepEqual(config, { server: { port: 8080 } });
  t.true(Object.isFrozen(config.server));
});

test('array entries and ranges are named by index', (t) => {
  const schema = z.strictObject({ command: z.array(z.string().min(1)).min(1), size: z.number().int().max(1024) });
  t.deepEqual(problemsOf(schema, { command: ['diode', ''], size: 2048 }), ['command[1] must be at least 1 characters long', 'size must be at most 1024']);
  t.deepEqual(problemsOf(schema, { command: [], size: 1 }), ['command must have at least 1 entries']);
});

test('bind addresses and allowed hosts are IP addresses or host names, as src/net/host-names.ts checks names', (t) => {
  const problems = problemsOf(hostConfigSchema, {
    roles: { monitor: { host: 'bad..name', allowed_hosts: ['-dash.example', 'a_b.example', 'ok.example', '::1'] } },
  });
  t.true(problems.includes('roles.monitor.host must be an IP address or a host name'), problems.join('\n'));
  t.true(problems.includes('roles.monitor.allowed_hosts[0] must be a host name or an IP address, without a port'), problems.join('\n'));
  t.true(problems.includes('roles.monitor.allowed_hosts[1] must be a host name or an IP address, without a port'), problems.join('\n'));
  t.is(problems.length, 3, problems.join('\n'));
  t.notThrows(() => validateConfig(hostConfigSchema, { roles: { monitor: { host: 'localhost', allowed_hosts: ['Dash.Example.NET', '10.0.0.5'] } } }));
});

test('a config file may name its JSON Schema in "$schema": the loader drops it before the strict schema sees it', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'outpost-schema-key-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'host.json');
  await writeFile(file, JSON.stringify({ $schema: './config-host.schema.json', roles: { monitor: {} } }));
  const config = await loadConfigFile(hostConfigSchema, file);
  t.false('$schema' in config);
  t.deepEqual(Object.keys(config.roles), ['monitor']);
  // Only the top level, and only a string: anywhere else it is an unknown key as any other.
  await writeFile(file, JSON.stringify({ roles: { monitor: { $schema: 'x' } } }));
  await t.throwsAsync(loadConfigFile(hostConfigSchema, file), { message: /roles\.monitor\["\$schema"\] is not a known option/ });
  await writeFile(file, JSON.stringify({ $schema: 1, roles: { monitor: {} } }));
  await t.throwsAsync(loadConfigFile(hostConfigSchema, file), { message: /: \["\$schema"\] is not a known option/ });
});
