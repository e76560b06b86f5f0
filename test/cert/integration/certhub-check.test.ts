// `certhub check -d DIR` against Pebble run with externalAccountBindingRequired and PowerDNS: with the
// HMAC key Pebble holds, every line is ok (the account is registered, and found again by the next
// check); with a wrong key the account line fails with the CA's reason; without eab, without the
// terms agreed to and with a wrong PowerDNS key, each of those lines fails and names what to set.
// A config problem exits 2 naming its option path.
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { startCertStack, stopCertStack } from '../../helpers/cert-stack.js';
import { certhubBin, certhubDataDir } from '../../helpers/certhub.js';
import { powerdnsSection } from '../../helpers/certhub-domains.js';
import { runToEnd } from '../../helpers/process.js';

const kid = 'kid-check';
const hmacKey = Buffer.alloc(48, 0x5a).toString('base64url');
const wrongKey = Buffer.alloc(48, 0x11).toString('base64url');
const eabSettings = { externalAccountBindingRequired: true, externalAccountMACKeys: { [kid]: hmacKey } };

function check(dataDir: string): ReturnType<typeof runToEnd> {
  return runToEnd(process.execPath, [certhubBin, 'check', '-d', dataDir], { NO_COLOR: '1' });
}

test('certhub check: each CA and DNS provider, with EAB where the CA requires it', async (t) => {
  const stack = await startCertStack({}, { settings: eabSettings });
  try {
    const { pebble, powerdns } = stack;
    const ca = new URL(pebble.directoryUrl).host.replace(/\./g, '\\.');
    const acme = (extra: object) => ({ directory_url: pebble.directoryUrl, ca_bundle: pebble.caFile, ...extra });

    const good = await certhubDataDir(t, { dns: powerdnsSection(powerdns), acme: acme({ accept_terms: true, eab: { kid, hmac_key: hmacKey } }) });
    const allOk = await check(good);
    t.is(allOk.code, 0, allOk.stdout + allOk.stderr);
    const lines = allOk.stdout.trimEnd().split('\n');
    t.is(lines.length, 5, allOk.stdout);
    t.regex(lines[0] ?? '', /config\.json: ok$/);
    t.regex(lines[1] ?? '', new RegExp(`^CA ${ca} directory: ok \\(https://`));
    t.regex(lines[2] ?? '', new RegExp(`^CA ${ca} terms of service: ok \\(agreed to \\S+\\)$`));
    t.regex(lines[3] ?? '', new RegExp(`^CA ${ca} account: ok \\(https://${ca}/\\S+\\)$`));
    t.regex(lines[4] ?? '', /^DNS dns \(powerdns\): ok \(zone example\.test: a TXT record at _certhub-check\.example\.test written and removed\)$/);
    t.true((await stat(join(good, 'acme', 'account.json'))).isFile(), 'the account is registered in the data directory');
    t.false(
      (await powerdns.rrsets()).some((rrset) => rrset.name.startsWith('_certhub-check.')),
      'the probe record is removed',
    );
    const again = await check(good);
    t.is(again.code, 0, again.stdout);
    t.is(again.stdout.split('\n')[3], lines[3], 'the same account, found at the CA');

    const wrong = await certhubDataDir(t, { dns: powerdnsSection(powerdns), acme: acme({ accept_terms: true, eab: { kid, hmac_key: wrongKey } }) });
    const refused = await check(wrong);
    t.is(refused.code, 1);
    t.regex(
      refused.stdout,
      new RegExp(
        `^CA ${ca} account: FAILED: acme: registering the account at \\S+ failed: external account binding JWS verification error.*; are acme\\.eab's kid and hmac_key the ones the CA gave\\?$`,
        'm',
      ),
    );
    t.regex(refused.stdout, /^DNS dns \(powerdns\): ok/m, 'the other checks go on');

    const unset = await certhubDataDir(t, { dns: powerdnsSection(powerdns, 'wrong-key'), acme: acme({}) });
    const failed = await check(unset);
    t.is(failed.code, 1);
    t.regex(
      failed.stdout,
      new RegExp(`^CA ${ca} terms of service: FAILED: the CA asks to agree to \\S+: read them, and set acme\\.accept_terms to true to agree$`, 'm'),
    );
    t.regex(failed.stdout, new RegExp(`^CA ${ca} account: FAILED: the CA registers accounts only with an external account binding: give acme\\.eab`, 'm'));
    t.regex(failed.stdout, /^DNS dns \(powerdns\): FAILED: powerdns: .*api_token/m);

    const listed = await certhubDataDir(t, { dns: powerdnsSection(powerdns), acme: { cas: [acme({ accept_terms: false })] } });
    t.regex((await check(listed)).stdout, /set acme\.cas\[0\]\.accept_terms to true/);
  } finally {
    await stopCertStack(stack);
  }
});

test('certhub check: a config problem exits 2 naming its option path', async (t) => {
  const dataDir = await certhubDataDir(t, {
    dns: { provider: 'powerdns', server_url: 'http://127.0.0.1:1', api_token: 'x', zone: 'example.test' },
    acme: { directory_url: 'https://127.0.0.1:1/dir', eab: { kid, hmac_key: 'short' } },
  });
  const result = await check(dataDir);
  t.is(result.code, 2);
  t.regex(result.stderr, /acme\.eab\.hmac_key/);
  t.is(result.stdout, '');
});
