// `certhub setup -d DIR` run as a user would: the real CLI, answers piped to its standard input.
// Whatever the answers, what it writes is a config certhub reads (with --demo when no DNS provider
// was given), 0600 in a 0700 directory, with a new admin key.
import { readFile, stat, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { certConfigSchema } from '../../actors/cert/config.js';
import { validateConfig } from '../../src/config/load.js';
import { certDataDir } from '../helpers/cert-files.js';
import { projectPath, runToEnd } from '../helpers/process.js';

const certhubBin = projectPath('dist/bin/certhub.js');

function certhub(args: readonly string[], answers: readonly string[] = []): ReturnType<typeof runToEnd> {
  return runToEnd(process.execPath, [certhubBin, ...args], {}, answers.map((answer) => `${answer}\n`).join(''));
}

async function modeOf(path: string): Promise<number> {
  return (await stat(path)).mode & 0o777;
}

async function readConfig(dataDir: string): Promise<Record<string, unknown>> {
  return JSON.parse(await readFile(join(dataDir, 'config.json'), 'utf8')) as Record<string, unknown>;
}

test('setup writes the answers (split providers), re-asks bad ones, hides secrets, prints the admin key', async (t) => {
  const dataDir = join(await certDataDir(t), 'data');
  const answers = ['exa_mple.org', 'Example.ORG', 'route53', 'cloudflare', 'cf-token-123', 'example.org', '023e105f4ecef8ad9ca31a8372d0c353', 'powerdns', 'ftp://x', 'http://127.0.0.1:8081', 'pdns-key-456', '', '127.0.0.1', '70000', '9443', 'ops@example.org'];
  const result = await certhub(['setup', '-d', dataDir], answers);
  t.is(result.code, 0, result.stderr);
  t.regex(result.stdout, /\[example\.com\]: exa_mple\.org\n {2}the base domain has the label "exa_mple"/);
  t.regex(result.stdout, /\[none\]: route53\n {2}please answer none or cloudflare or powerdns/);
  t.regex(result.stdout, /zone id \[skip\]: example\.org\n {2}that looks like the zone name/);
  t.regex(result.stdout, /ftp:\/\/x\n {2}please give an http:\/\/ or https:\/\/ URL/);
  t.regex(result.stdout, /"70000" is not usable/);
  t.notRegex(result.stdout, /cf-token-123|pdns-key-456/, 'credentials are not shown');
  const config = await readConfig(dataDir);
  const adminKey = String(config.admin_key);
  t.regex(adminKey, /^cha_[\w-]{43}$/);
  t.regex(result.stdout, new RegExp(`Admin key .*\\n {4}${adminKey}\\n`));
  t.regex(result.stdout, new RegExp(`Next: certhub run -d ${dataDir}\\n`));
  t.deepEqual(config, {
    base_domain: 'example.org',
    admin_key: adminKey,
    bind: '127.0.0.1',
    port: 9443,
    dns_acme: { provider: 'cloudflare', api_token: 'cf-token-123', zone_id: '023e105f4ecef8ad9ca31a8372d0c353' },
    dns_records: { provider: 'powerdns', server_url: 'http://127.0.0.1:8081', api_token: 'pdns-key-456', zone: 'example.org' },
    acme: { email: 'ops@example.org' },
  });
  validateConfig(certConfigSchema({ demo: false }), config);
  t.is(await modeOf(dataDir), 0o700);
  t.is(await modeOf(join(dataDir, 'config.json')), 0o600);
});

test('one provider for both duties is written as dns', async (t) => {
  const dataDir = await certDataDir(t);
  const result = await certhub(['setup', '-d', dataDir], ['example.net', 'powerdns', '', 'key', 'example.net', 'same']);
  t.is(result.code, 0, result.stderr);
  const config = await readConfig(dataDir);
  t.deepEqual(config.dns, { provider: 'powerdns', server_url: 'http://127.0.0.1:8081', api_token: 'key', zone: 'example.net' });
  t.is(config.dns_acme, undefined);
  t.like(validateConfig(certConfigSchema({ demo: false }), config), { bind: '0.0.0.0', port: 8443 });
});

test('every prompt skipped (closed stdin or empty lines): a config for --demo, and what to fill in', async (t) => {
  for (const answers of [[], Array<string>(20).fill('')]) {
    const dataDir = join(await certDataDir(t), 'fresh');
    const result = await certhub(['setup', '-d', dataDir], answers);
    t.is(result.code, 0, result.stderr);
    const config = validateConfig(certConfigSchema({ demo: true }), await readConfig(dataDir));
    t.like(config, { base_domain: 'example.com', bind: '0.0.0.0', port: 8443 });
    t.regex(result.stdout, /Before certhub run, fill in config\.json:\n {2}base_domain is example\.com, a placeholder/);
    t.regex(result.stdout, /\n {2}dns is required/);
    t.regex(result.stdout, new RegExp(`certhub run -d ${dataDir} --demo`));
  }
});

test('a skipped credential is left out and named as missing', async (t) => {
  const dataDir = await certDataDir(t);
  const result = await certhub(['setup', '-d', dataDir], ['example.org', 'cloudflare', '', '']);
  t.is(result.code, 0, result.stderr);
  t.deepEqual((await readConfig(dataDir)).dns, { provider: 'cloudflare' });
  t.regex(result.stdout, /\n {2}dns\.api_token must be a string\n {2}dns\.zone_id must be a string\n/);
});

test('an existing config is kept unless --force; the refusal comes before any question', async (t) => {
  const dataDir = await certDataDir(t);
  await mkdir(dataDir, { recursive: true });
  await writeFile(join(dataDir, 'config.json'), 'precious\n');
  const refused = await certhub(['setup', '-d', dataDir]);
  t.is(refused.code, 1);
  t.regex(refused.stderr, /config\.json exists; not overwriting it \(pass --force/);
  t.is(refused.stdout, '');
  t.is(await readFile(join(dataDir, 'config.json'), 'utf8'), 'precious\n');
  const forced = await certhub(['setup', '-d', dataDir, '--force']);
  t.is(forced.code, 0, forced.stderr);
  validateConfig(certConfigSchema({ demo: true }), await readConfig(dataDir));
});

test('setup without -d is a usage error (exit 2); --help lists the options', async (t) => {
  const missing = await certhub(['setup']);
  t.is(missing.code, 2);
  t.regex(missing.stderr, /required option '-d, --data-dir <dir>' not specified/);
  const help = await certhub(['setup', '--help']);
  t.is(help.code, 0);
  t.regex(help.stdout, /-d, --data-dir <dir>/);
  t.regex(help.stdout, /--force/);
});
