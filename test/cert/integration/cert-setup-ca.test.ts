// `certhub setup` and the CA: the real CLI over stdin reads the directory it is given and asks from
// what it says. Against Pebble behind the profiles layer (meta.profiles, meta.termsOfService): the
// offered profiles are listed and one is chosen, the terms' URL is shown and a yes is required (no
// default); certhub run on the written config registers the account telling the CA it agreed, and
// issues. A no stops the wizard: nothing written, no account. Pebble requiring external account
// binding (meta.externalAccountRequired) gets its kid and HMAC key asked. A directory that cannot be
// read is said, the named CAs needing EAB still get it asked, and acme.accept_terms is left to fill in.
// Without acme.accept_terms, certhub registers no account at a CA that names terms.
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { openAcmeAccount } from '../../../actors/cert/acme/account.js';
import { certConfigSchema } from '../../../actors/cert/config.js';
import { generatePrivateKeyPem } from '../../../actors/cert/private-key.js';
import { reservePort } from '../../../src/http/port.js';
import { validateConfig } from '../../../src/config/load.js';
import { certDataDir } from '../../helpers/cert-files.js';
import { startCertStack, stopCertStack } from '../../helpers/cert-stack.js';
import { certhubBin, startCerthub, testAdminKey } from '../../helpers/certhub.js';
import { addDomain, settled, waitForDomain } from '../../helpers/certhub-domains.js';
import { runToEnd } from '../../helpers/process.js';
import { startProfilesCa } from '../fixtures/acme/profiles-ca.js';
import { withAcme } from '../helpers/acme.js';

function setup(dataDir: string, answers: readonly string[]): ReturnType<typeof runToEnd> {
  return runToEnd(process.execPath, [certhubBin, 'setup', '-d', dataDir], {}, answers.map((answer) => `${answer}\n`).join(''));
}

async function readConfig(dataDir: string): Promise<Record<string, unknown>> {
  return JSON.parse(await readFile(join(dataDir, 'config.json'), 'utf8')) as Record<string, unknown>;
}

const pebbleTerms = /The CA's terms of service: data:text\/plain,Do%20what%20thou%20wilt\n/;

test('profiles and terms from the directory: a profile chosen, the terms agreed to; certhub run registers with the agreement and issues', async (t) => {
  const stack = await startCertStack();
  try {
    const ca = await startProfilesCa(stack.pebble);
    t.teardown(() => ca.close());
    const { powerdns } = stack;
    const dataDir = join(await certDataDir(t), 'data');
    const answers = [
      powerdns.zone,
      ca.directoryUrl,
      stack.pebble.caFile,
      'forever',
      'shortlived',
      '',
      'maybe',
      'yes',
      'powerdns',
      'same',
      powerdns.apiUrl,
      powerdns.apiKey,
      '',
      powerdns.nameserver,
      '127.0.0.1',
      '',
      '',
    ];
    const result = await setup(dataDir, answers);
    t.is(result.code, 0, result.stderr + result.stdout);
    t.regex(
      result.stdout,
      /Profiles the CA offers .*\n {2}classic: The same profile you are accustomed to \(90 days\)\n {2}tlsserver: .*\n {2}shortlived: .*\n/,
    );
    t.regex(result.stdout, /Profile \(Enter: the CA's default\) \[default\]: forever\n {2}please answer one of classic, tlsserver, shortlived, or press Enter/);
    t.regex(result.stdout, pebbleTerms);
    t.regex(result.stdout, /Do you agree to the CA's terms of service\? \(yes\/no\): \n {2}please answer yes or no \(there is no default\)\n/);
    t.regex(result.stdout, /\(yes\/no\): maybe\n {2}please answer yes or no/);
    t.regex(result.stdout, /Next: certhub run -d /);
    const config = await readConfig(dataDir);
    t.deepEqual(config.acme, { directory_url: ca.directoryUrl, ca_bundle: stack.pebble.caFile, profile: 'shortlived', accept_terms: true });
    t.deepEqual(ca.newAccounts, [], 'setup registers no account');

    // The helper's admin calls carry its own key.
    await writeFile(join(dataDir, 'config.json'), JSON.stringify({ ...config, admin_key: testAdminKey }), { mode: 0o600 });
    const server = await startCerthub(t, dataDir, []);
    await addDomain(server, 'agreed', '203.0.113.10');
    const domain = await waitForDomain(server, 'agreed', settled, 60_000);
    t.is(domain.status, 'issued', domain.error ?? '');
    t.like(ca.newAccounts, [{ termsOfServiceAgreed: true }]);
    t.deepEqual(
      ca.newOrders.map(({ profile }) => profile),
      ['shortlived'],
    );
  } finally {
    await stopCertStack(stack);
  }
});

test('a no to the terms stops the wizard: exit 1, nothing written, no account', async (t) => {
  const stack = await startCertStack();
  try {
    const ca = await startProfilesCa(stack.pebble, { offerProfiles: false });
    t.teardown(() => ca.close());
    const dataDir = join(await certDataDir(t), 'data');
    const result = await setup(dataDir, [stack.powerdns.zone, ca.directoryUrl, stack.pebble.caFile, 'no', 'none', '', '', '']);
    t.is(result.code, 1, result.stdout);
    t.notRegex(result.stdout, /Profile/, 'a CA without profiles gets no profile question');
    t.regex(result.stdout, pebbleTerms);
    t.regex(result.stderr, /the CA's terms of service were not agreed to, and the CA registers no account without that; nothing was written/);
    await t.throwsAsync(stat(dataDir), { code: 'ENOENT' });
    t.deepEqual(ca.newAccounts, []);
  } finally {
    await stopCertStack(stack);
  }
});

test('a CA whose directory requires external account binding: kid and HMAC key asked, a short key asked again', async (t) => {
  const kid = 'kid-setup';
  const hmacKey = Buffer.alloc(32, 0x3c).toString('base64url');
  const stack = await startCertStack({}, { settings: { externalAccountBindingRequired: true, externalAccountMACKeys: { [kid]: hmacKey } } });
  try {
    const dataDir = join(await certDataDir(t), 'data');
    const answers = [stack.powerdns.zone, stack.pebble.directoryUrl, stack.pebble.caFile, kid, 'c2hvcnQ', hmacKey, 'yes', 'none', '', '', ''];
    const result = await setup(dataDir, answers);
    t.is(result.code, 0, result.stderr + result.stdout);
    t.regex(result.stdout, /This CA registers an account only with an external account binding/);
    t.regex(result.stdout, /The HMAC key decodes to 5 bytes, and an HS256 key has at least 32/);
    t.notRegex(result.stdout, new RegExp(hmacKey), 'the HMAC key is not shown');
    t.deepEqual((await readConfig(dataDir)).acme, {
      directory_url: stack.pebble.directoryUrl,
      ca_bundle: stack.pebble.caFile,
      eab: { kid, hmac_key: hmacKey },
      accept_terms: true,
    });
  } finally {
    await stopCertStack(stack);
  }
});

test('a directory that cannot be read is said; EAB is still asked where the CA needs it; accept_terms is left to fill in', async (t) => {
  const hmacKey = Buffer.alloc(32, 0x41).toString('base64url');
  const named = join(await certDataDir(t), 'named');
  // zerossl needs EAB whatever its directory says (none can be read here: no network, or none wanted).
  const zerossl = await setup(named, ['example.net', 'zerossl', '', 'zs-kid', hmacKey, 'none', '', '', '']);
  t.is(zerossl.code, 0, zerossl.stderr + zerossl.stdout);
  t.regex(zerossl.stdout, /Reading https:\/\/acme\.zerossl\.com\/v2\/DV90\.\.\.\n {2}Could not read it: .+\.\n/);
  t.deepEqual((await readConfig(named)).acme, { directory_url: 'zerossl', eab: { kid: 'zs-kid', hmac_key: hmacKey } });
  t.regex(zerossl.stdout, /fill in config\.json:\n(?: {2}.*\n)* {2}acme\.accept_terms: read the CA's terms of service/);

  const closed = `https://127.0.0.1:${await reservePort('127.0.0.1')}/dir`;
  const other = join(await certDataDir(t), 'other');
  const url = await setup(other, ['example.net', closed, '', 'y', 'own-kid', hmacKey, 'none', '', '', '']);
  t.is(url.code, 0, url.stderr + url.stdout);
  t.regex(url.stdout, /Could not read it: connect ECONNREFUSED 127\.0\.0\.1:\d+\.\n/);
  t.regex(url.stdout, /Does this CA ask for an external account binding \(a key identifier and an HMAC key\)\? \[y\/N\]: y\n/);
  const config = validateConfig(certConfigSchema({ demo: true }), await readConfig(other));
  t.like(config.acme, { directory_url: closed, eab: { kid: 'own-kid', hmac_key: hmacKey }, accept_terms: false });
});

test('without acme.accept_terms, no account is registered at a CA that names terms', withAcme, async (t, fixture) => {
  const generateKey = () => Promise.resolve(generatePrivateKeyPem({ keyType: 'ecdsa-p256' }));
  await t.throwsAsync(
    openAcmeAccount({
      acceptTerms: false,
      directoryUrl: fixture.pebble.directoryUrl,
      caBundlePem: await readFile(fixture.pebble.caFile, 'utf8'),
      dir: join(fixture.dir, 'not-agreed'),
      generateKey,
    }),
    { message: /the CA asks to agree to its terms of service, data:text\/plain,Do%20what%20thou%20wilt: read them, and set acme\.accept_terms to true/ },
  );
});
