// `certhub setup -d DIR` run as a user would: the real CLI, answers piped to its standard input.
// Whatever the answers, what it writes is a config certhub reads (with --demo when no DNS provider
// was given), 0600 in a 0700 directory, with a new admin key; input that ends early writes nothing.
// Credentials tried against real providers: cert-setup-credentials.test.ts.
import { readFile, stat, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { certConfigSchema } from '../../../actors/cert/config.js';
import { validateConfig } from '../../../src/config/load.js';
import { certDataDir } from '../../helpers/cert-files.js';
import { projectPath, runToEnd } from '../../helpers/process.js';

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

test('setup re-asks bad answers and writes the rest; a skipped credential is left out, untried, and named as missing', async (t) => {
  const dataDir = join(await certDataDir(t), 'data');
  const answers = [
    '',
    'exa_mple.org',
    'Example.ORG',
    'ftp://ca.example',
    'letsencrypt-staging',
    'ca.pem',
    '',
    'route53',
    'cloudflare',
    'same',
    'cf-token-123',
    'example.org',
    '',
    '10.0.0.1:99999',
    '192.0.2.53, [2001:db8::53]:5353',
    '127.0.0.1',
    '70000',
    '9443',
    'ops@example.org',
  ];
  const result = await certhub(['setup', '-d', dataDir], answers);
  t.is(result.code, 0, result.stderr);
  t.regex(result.stdout, /Base domain \(subdomains are created under it, e\.g\. [^)]+\): \n {2}please give the domain certhub manages \(there is no default\)/);
  t.regex(result.stdout, /: exa_mple\.org\n {2}the base domain has the label "exa_mple"/);
  t.regex(
    result.stdout,
    /ACME directory \[letsencrypt\]: ftp:\/\/ca\.example\n {2}please answer letsencrypt, letsencrypt-staging, zerossl, google, google-staging, or an https:\/\/ URL/,
  );
  t.regex(result.stdout, /ca\.pem\n {2}please give an absolute path/);
  t.regex(result.stdout, /\[none\]: route53\n {2}please answer none or cloudflare or powerdns/);
  t.regex(result.stdout, /zone id \[skip\]: example\.org\n {2}that looks like the zone name/);
  t.regex(result.stdout, /Not tried: zone_id still to fill in\./);
  t.regex(result.stdout, /10\.0\.0\.1:99999\n {2}10\.0\.0\.1:99999 is not host:port/);
  t.regex(result.stdout, /"70000" is not usable/);
  t.notRegex(result.stdout, /cf-token-123/, 'credentials are not shown');
  const config = await readConfig(dataDir);
  const adminKey = String(config.admin_key);
  t.regex(adminKey, /^cha_[\w-]{43}$/);
  t.regex(result.stdout, new RegExp(`Admin key .*\\n {4}${adminKey}\\n`));
  t.deepEqual(config, {
    base_domain: 'example.org',
    admin_key: adminKey,
    bind: '127.0.0.1',
    port: 9443,
    dns: { provider: 'cloudflare', api_token: 'cf-token-123' },
    acme: { directory_url: 'letsencrypt-staging', email: 'ops@example.org' },
    propagation: { nameservers: ['192.0.2.53', '[2001:db8::53]:5353'] },
  });
  t.regex(result.stdout, /Before certhub run, fill in config\.json:\n {2}dns\.zone_id must be a string\n/);
  t.is(await modeOf(dataDir), 0o700);
  t.is(await modeOf(join(dataDir, 'config.json')), 0o600);
});

test('no DNS provider: a config for --demo, and what to fill in', async (t) => {
  const dataDir = join(await certDataDir(t), 'fresh');
  const result = await certhub(['setup', '-d', dataDir], ['example.net', '', '', '', '', '', '']);
  t.is(result.code, 0, result.stderr);
  const config = validateConfig(certConfigSchema({ demo: true }), await readConfig(dataDir));
  t.like(config, { base_domain: 'example.net', bind: '0.0.0.0', port: 8443 });
  t.regex(result.stdout, /Before certhub run, fill in config\.json:\n {2}dns is required/);
  t.regex(result.stdout, new RegExp(`certhub run -d ${dataDir} --demo`));
});

test('the end of input is no answer: nothing is written, exit 1 naming the unanswered question', async (t) => {
  for (const answers of [[], ['example.net', 'letsencrypt'], Array<string>(20).fill('')]) {
    const dataDir = join(await certDataDir(t), 'fresh');
    const result = await certhub(['setup', '-d', dataDir], answers);
    t.is(result.code, 1, `${answers.length} answers: ${result.stdout}`);
    t.regex(result.stderr, /the input ended before "[^"]+" was answered .*nothing was written/);
    await t.throwsAsync(stat(dataDir), { code: 'ENOENT' }, 'no data directory, no config');
  }
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
  const forced = await certhub(['setup', '-d', dataDir, '--force'], ['example.net', '', '', '', '', '', '']);
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
