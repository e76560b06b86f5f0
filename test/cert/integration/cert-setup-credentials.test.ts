// `certhub setup` tries each DNS provider's credentials before writing them: the
// real CLI over stdin, against a real PowerDNS and the Cloudflare double (which verifies tokens as
// Cloudflare does). A refused credential is named; the wizard asks again, or stops writing nothing.
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { certConfigSchema } from '../../../actors/cert/config.js';
import { validateConfig } from '../../../src/config/load.js';
import { certDataDir } from '../../helpers/cert-files.js';
import { withPowerDns } from '../../helpers/cert-stack.js';
import { certhubBin } from '../../helpers/certhub.js';
import { runToEnd } from '../../helpers/process.js';
import { startCloudflareDouble } from '../fixtures/cloudflare/cloudflare-double.js';

function setup(dataDir: string, answers: readonly string[], args: readonly string[] = []): ReturnType<typeof runToEnd> {
  return runToEnd(process.execPath, [certhubBin, 'setup', '-d', dataDir, ...args], {}, answers.map((answer) => `${answer}\n`).join(''));
}

async function readConfig(dataDir: string): Promise<Record<string, unknown>> {
  return JSON.parse(await readFile(join(dataDir, 'config.json'), 'utf8')) as Record<string, unknown>;
}

test('powerdns: the key is tried against the zone; a wrong one is named and asked again, the right one written', withPowerDns, async (t, powerdns) => {
  const dataDir = join(await certDataDir(t), 'data');
  const provider = (key: string) => [powerdns.apiUrl, key, ''];
  const answers = [
    powerdns.zone,
    '',
    '',
    'powerdns',
    'same',
    ...provider('wrong-key'),
    'y',
    ...provider(powerdns.apiKey),
    powerdns.nameserver,
    '127.0.0.1',
    '',
    '',
  ];
  const result = await setup(dataDir, answers);
  t.is(result.code, 0, result.stderr + result.stdout);
  t.regex(result.stdout, /Failed: powerdns: the API refused the key \(HTTP 401\): check api_token\n/);
  t.regex(result.stdout, new RegExp(`OK: PowerDNS at ${powerdns.apiUrl} answers for zone ${powerdns.zone} with that key\\.`));
  t.notRegex(result.stdout, new RegExp(powerdns.apiKey), 'the key is not shown');
  const config = await readConfig(dataDir);
  t.deepEqual(config.dns, { provider: 'powerdns', server_url: powerdns.apiUrl, api_token: powerdns.apiKey, zone: powerdns.zone });
  t.deepEqual(config.propagation, { nameservers: [powerdns.nameserver] });
  t.like(validateConfig(certConfigSchema({ demo: false }), config), {
    base_domain: powerdns.zone,
    acme: { directory_url: 'https://acme-v02.api.letsencrypt.org/directory' },
  });
  // The directory of Let's Encrypt is not reachable from the test: its terms are left to agree to in config.json.
  t.regex(result.stdout, /Before certhub run, fill in config\.json:\n {2}acme\.accept_terms: read the CA's terms of service[^\n]*\n$/);
});

test('powerdns: a wrong key or zone, not given again: exit 1 naming what failed, nothing written', withPowerDns, async (t, powerdns) => {
  for (const [key, zone, failure] of [
    ['wrong-key', '', /powerdns: the API refused the key \(HTTP 401\): check api_token/],
    [powerdns.apiKey, `other.${powerdns.zone}`, /powerdns: zone other\.example\.test\. not found at \S+ \(HTTP 404\): check zone and server_url/],
  ] as const) {
    const dataDir = join(await certDataDir(t), 'data');
    const result = await setup(dataDir, [`app.other.${powerdns.zone}`, '', '', 'powerdns', 'same', powerdns.apiUrl, key, zone, 'n']);
    t.is(result.code, 1, result.stdout);
    t.regex(result.stdout, new RegExp(`Failed: ${failure.source}`));
    t.regex(result.stderr, new RegExp(`^certhub: ${failure.source}.*; nothing was written`));
    await t.throwsAsync(stat(dataDir), { code: 'ENOENT' });
  }
});

test('cloudflare: the token is verified and the zone read; a wrong token is named; split with powerdns for the records', withPowerDns, async (t, powerdns) => {
  const cloudflare = await startCloudflareDouble({ zone: powerdns.zone, powerdns });
  t.teardown(() => cloudflare.close());
  const dataDir = join(await certDataDir(t), 'data');
  const answers = [
    `certs.${powerdns.zone}`,
    'https://127.0.0.1:14000/dir',
    '',
    // Nothing answers there: the wizard asks whether that CA needs external account binding (Enter: no).
    '',
    'cloudflare',
    'powerdns',
    'wrong-token',
    cloudflare.zoneId,
    'y',
    cloudflare.token,
    cloudflare.zoneId,
    powerdns.apiUrl,
    powerdns.apiKey,
    powerdns.zone,
    '',
    '127.0.0.1',
    '',
    '',
  ];
  const result = await setup(dataDir, answers, ['--cloudflare-api-url', cloudflare.apiUrl]);
  t.is(result.code, 0, result.stderr + result.stdout);
  t.regex(result.stdout, /Failed: cloudflare: the API token was refused \(HTTP 401, 1000 Invalid API Token\): check api_token\n/);
  t.regex(result.stdout, new RegExp(`OK: Cloudflare verifies the token, it reads zone ${powerdns.zone} and may change its records\\.`));
  t.notRegex(result.stdout, new RegExp(cloudflare.token), 'the token is not shown');
  t.true(cloudflare.requests.some((request) => request.path === '/client/v4/user/tokens/verify' && request.status === 401));
  const config = await readConfig(dataDir);
  t.deepEqual(config.dns_acme, { provider: 'cloudflare', api_token: cloudflare.token, zone_id: cloudflare.zoneId, api_url: cloudflare.apiUrl });
  t.deepEqual(config.dns_records, { provider: 'powerdns', server_url: powerdns.apiUrl, api_token: powerdns.apiKey, zone: powerdns.zone });
  t.like(validateConfig(certConfigSchema({ demo: false }), config), { acme: { directory_url: 'https://127.0.0.1:14000/dir' } });
});

test(
  'cloudflare: a token that verifies and reads the zone but lacks DNS Write is named as such: exit 1, nothing written',
  withPowerDns,
  async (t, powerdns) => {
    const cloudflare = await startCloudflareDouble({ zone: powerdns.zone, powerdns });
    t.teardown(() => cloudflare.close());
    const dataDir = join(await certDataDir(t), 'data');
    const result = await setup(
      dataDir,
      [powerdns.zone, '', '', 'cloudflare', 'same', cloudflare.readOnlyToken, cloudflare.zoneId],
      ['--cloudflare-api-url', cloudflare.apiUrl],
    );
    t.is(result.code, 1, result.stdout);
    t.regex(
      result.stdout,
      new RegExp(
        `Failed: cloudflare: the API token reads zone ${cloudflare.zoneId} but may not change its DNS records \\(HTTP 403, 10000 Authentication error\\): give it the DNS Write permission \\(Zone > DNS > Edit\\) on that zone`,
      ),
    );
    t.true(cloudflare.requests.some((request) => request.path === '/client/v4/user/tokens/verify' && request.status === 200));
    t.deepEqual(cloudflare.records(), [], 'nothing was written');
    await t.throwsAsync(stat(dataDir), { code: 'ENOENT' });
  },
);

test('cloudflare: a wrong token, then the end of input: exit 1, nothing written', withPowerDns, async (t, powerdns) => {
  const cloudflare = await startCloudflareDouble({ zone: powerdns.zone, powerdns });
  t.teardown(() => cloudflare.close());
  const dataDir = join(await certDataDir(t), 'data');
  const result = await setup(
    dataDir,
    [powerdns.zone, '', '', 'cloudflare', 'same', 'wrong-token', cloudflare.zoneId],
    ['--cloudflare-api-url', cloudflare.apiUrl],
  );
  t.is(result.code, 1, result.stdout);
  t.regex(result.stdout, /Failed: cloudflare: the API token was refused \(HTTP 401, 1000 Invalid API Token\)/);
  t.regex(result.stderr, /the input ended before "\s*Give this provider's answers again\? \[Y\/n\]" was answered/);
  await t.throwsAsync(stat(dataDir), { code: 'ENOENT' });
});
