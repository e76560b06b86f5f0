import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { cloudflareApiUrl } from '../../../actors/cert/config.js';
import { loadCertConfig } from '../../../actors/cert/config-load.js';
import { legacyCloudflareKeys, migrateLegacyConfig, migrateLegacyObject } from '../../../actors/cert/config-legacy.js';
import { ConfigError } from '../../../src/errors.js';
import { projectPath } from '../../helpers/process.js';

const adminKey = 'cha_0123456789abcdef0123456789abcdef';
const zoneId = '023e105f4ecef8ad9ca31a8372d0c353';

async function dataDir(t: ExecutionContext, config?: unknown): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'certhub-legacy-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  if (config !== undefined) await writeFile(join(dir, 'config.json'), typeof config === 'string' ? config : JSON.stringify(config, null, 2), { mode: 0o600 });
  return dir;
}

test('every legacy key pair becomes a dns section in the place of the first legacy key', (t) => {
  for (const tokenKey of legacyCloudflareKeys.api_token) {
    for (const zoneKey of legacyCloudflareKeys.zone_id) {
      const migrated = migrateLegacyObject({ base_domain: 'example.com', [tokenKey]: 'tok', admin_key: adminKey, [zoneKey]: zoneId, port: 9443 });
      t.deepEqual(migrated?.keys, [tokenKey, zoneKey]);
      t.deepEqual(Object.keys(migrated?.config ?? {}), ['base_domain', 'dns', 'admin_key', 'port']);
      t.deepEqual(migrated?.config.dns, { provider: 'cloudflare', api_token: 'tok', zone_id: zoneId });
    }
  }
});

test('docs/certhub.md lists every legacy key', async (t) => {
  const manual = await readFile(projectPath('docs/certhub.md'), 'utf8');
  for (const key of [...legacyCloudflareKeys.api_token, ...legacyCloudflareKeys.zone_id]) t.true(manual.includes(`\`${key}\``), key);
});

test('a current config, or no object at all, is left alone', (t) => {
  t.is(migrateLegacyObject({ base_domain: 'example.com', dns: { provider: 'cloudflare' } }), undefined);
  t.is(migrateLegacyObject([1, 2]), undefined);
  t.is(migrateLegacyObject('text'), undefined);
});

test('half a legacy pair, disagreeing aliases, or legacy keys beside dns are refused by name', (t) => {
  const refusal = (input: unknown) => t.throws(() => migrateLegacyObject(input), { instanceOf: ConfigError })?.message;
  t.is(refusal({ cf_api_token: 'tok' }), 'cf_api_token (legacy Cloudflare key) needs cloudflare_zone_id too, or move both into a dns section');
  t.is(refusal({ cloudflare_api_token: 'a', cf_api_token: 'b', cf_zone_id: zoneId }), 'cloudflare_api_token and cf_api_token disagree; keep one of them');
  t.is(
    refusal({ cloudflare_api_token: 'a', cloudflare_zone_id: zoneId, dns: {} }),
    'cloudflare_api_token, cloudflare_zone_id (legacy Cloudflare keys) cannot be used with dns: remove them, or remove dns',
  );
  // The same value under two aliases is not a conflict.
  t.deepEqual(migrateLegacyObject({ cloudflare_api_token: 'a', cf_api_token: 'a', cf_zone_id: zoneId })?.config, {
    dns: { provider: 'cloudflare', api_token: 'a', zone_id: zoneId },
  });
});

test('first start rewrites the file (0600), keeps the old one beside it, and loads; the second start does nothing', async (t) => {
  const legacy = { base_domain: 'example.com', admin_key: adminKey, cloudflare_api_token: 'tok', cloudflare_zone_id: zoneId };
  const dir = await dataDir(t, legacy);
  const oldText = await readFile(join(dir, 'config.json'), 'utf8');
  const first = await loadCertConfig(dir, { demo: false });
  t.deepEqual(first.migration, {
    configPath: join(dir, 'config.json'),
    legacyPath: join(dir, 'config.json.legacy'),
    keys: ['cloudflare_api_token', 'cloudflare_zone_id'],
  });
  t.deepEqual(first.config.dns, { provider: 'cloudflare', api_token: 'tok', zone_id: zoneId, api_url: cloudflareApiUrl });
  t.is(await readFile(join(dir, 'config.json.legacy'), 'utf8'), oldText);
  t.deepEqual(JSON.parse(await readFile(join(dir, 'config.json'), 'utf8')), {
    base_domain: 'example.com',
    admin_key: adminKey,
    dns: { provider: 'cloudflare', api_token: 'tok', zone_id: zoneId },
  });
  for (const file of ['config.json', 'config.json.legacy']) t.is((await stat(join(dir, file))).mode & 0o777, 0o600, file);
  t.deepEqual((await readdir(dir)).sort(), ['config.json', 'config.json.legacy'], 'no temporary file is left');

  const second = await loadCertConfig(dir, { demo: false });
  t.is(second.migration, undefined);
  t.deepEqual(second.config, first.config);
});

test('a config that cannot be read or parsed is reported by the loader, not the migration', async (t) => {
  const missing = await dataDir(t);
  t.is(await migrateLegacyConfig(missing), undefined);
  await t.throwsAsync(loadCertConfig(missing, { demo: false }), { instanceOf: ConfigError, message: /config\.json does not exist: run certhub setup -d / });
  const broken = await dataDir(t, '{"base_domain": ');
  t.is(await migrateLegacyConfig(broken), undefined);
  await t.throwsAsync(loadCertConfig(broken, { demo: false }), { instanceOf: ConfigError, message: /config\.json is not valid JSON/ });
});

test('a refused migration names the file and writes nothing', async (t) => {
  const dir = await dataDir(t, { base_domain: 'example.com', admin_key: adminKey, cf_zone_id: zoneId });
  await t.throwsAsync(migrateLegacyConfig(dir), {
    instanceOf: ConfigError,
    message: `${join(dir, 'config.json')}: cf_zone_id (legacy Cloudflare key) needs cloudflare_api_token too, or move both into a dns section`,
  });
  t.deepEqual(await readdir(dir), ['config.json']);
});
