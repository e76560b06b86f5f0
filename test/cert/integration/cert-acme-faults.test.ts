// Orders that fail: the reason is clear, the CA's Retry-After reaches the caller, and no challenge
// record is left behind (propagation timeout, the CA refusing the challenge, a provider refusing the write).
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { openAcmeAccount } from '../../../actors/cert/acme/account.js';
import { AcmeOrderError } from '../../../actors/cert/acme/errors.js';
import { issueCertificate } from '../../../actors/cert/acme/order.js';
import { AuthoritativeDns } from '../../../actors/cert/acme/propagation.js';
import { createDnsProvider } from '../../../actors/cert/dns/providers/create.js';
import { reservePort } from '../../../src/http/port.js';
import { generatePrivateKeyPem } from '../../../actors/cert/private-key.js';
import { startRefusingCa } from '../fixtures/acme/refusing-ca.js';
import { withAcme } from '../helpers/acme.js';
import { freeDnsPort } from '../../../benchmarks/third-party/daemon.js';
import { startPebble } from '../../../benchmarks/third-party/pebble.js';
import { startPowerDns } from '../../../benchmarks/third-party/powerdns.js';

const generateKey = (keyType: Parameters<typeof generatePrivateKeyPem>[0]['keyType']) => Promise.resolve(generatePrivateKeyPem({ keyType }));

test('a propagation timeout fails the order and removes the challenge record', withAcme, async (t, fixture) => {
  const { powerdns } = fixture;
  const name = `slow.${powerdns.zone}`;
  // A second nameserver that never answers: the value can never be seen at every server.
  const silent = `127.0.0.1:${await freeDnsPort()}`;
  const context = fixture.issueContext({
    authoritative: new AuthoritativeDns({ nameservers: [powerdns.nameserver, silent], queryTimeoutMs: 1000 }),
    propagation: { timeoutMs: 1500, intervalMs: 50 },
  });
  await t.throwsAsync(issueCertificate({ name, keyType: 'ecdsa-p256' }, context), {
    code: 'ERR_DNS_PROPAGATION',
    message: new RegExp(`^TXT _acme-challenge\\.${name.replaceAll('.', '\\.')} = "[\\w-]+" was not answered within 1500 ms by (.*, )?${silent} \\(no answer: `),
  });
  t.deepEqual(await powerdns.dig(`_acme-challenge.${name}`, 'TXT'), []);
  t.deepEqual(await context.dns.list(`_acme-challenge.${name}`), []);
});

test('a provider that refuses the write fails the order before the CA is asked to validate', withAcme, async (t, fixture) => {
  const { powerdns } = fixture;
  const name = `refused.${powerdns.zone}`;
  const dns = createDnsProvider({ provider: 'powerdns', server_url: powerdns.apiUrl, api_token: 'wrong-key', zone: powerdns.zone });
  await t.throwsAsync(issueCertificate({ name, keyType: 'ecdsa-p256' }, fixture.issueContext({ dns })), {
    code: 'ERR_DNS_PROVIDER',
    message: /^powerdns: the API refused the key/,
  });
  t.deepEqual(await powerdns.dig(`_acme-challenge.${name}`, 'TXT'), []);
});

test('a challenge the CA finds invalid fails the order with its reason and removes the record', async (t) => {
  // Pebble validates through a PowerDNS that does not have the record; the check asks the one that does.
  const [ours, theirs] = await Promise.all([startPowerDns(), startPowerDns()]);
  const pebble = await startPebble({ dnsServer: theirs.nameserver });
  const dir = await mkdtemp(join(tmpdir(), 'outpost-acme-'));
  const account = await openAcmeAccount({
    acceptTerms: true,
    directoryUrl: pebble.directoryUrl,
    caBundlePem: await readFile(pebble.caFile, 'utf8'),
    dir,
    generateKey,
  });
  try {
    const name = `invalid.${ours.zone}`;
    const dns = createDnsProvider({ provider: 'powerdns', server_url: ours.apiUrl, api_token: ours.apiKey, zone: ours.zone });
    const context = {
      account,
      dns,
      authoritative: new AuthoritativeDns({ nameservers: [ours.nameserver] }),
      propagation: { timeoutMs: 30_000, intervalMs: 50 },
      generateKey,
    };
    const error = await t.throwsAsync(issueCertificate({ name, keyType: 'ecdsa-p256' }, context), {
      code: 'ERR_ACME_ORDER',
      message: new RegExp(`^acme: validating ${name.replaceAll('.', '\\.')} failed: `),
    });
    t.log(error?.message);
    t.deepEqual(await ours.dig(`_acme-challenge.${name}`, 'TXT'), []);
  } finally {
    account.close();
    await pebble.stop();
    await Promise.all([ours.stop(), theirs.stop(), rm(dir, { recursive: true, force: true })]);
  }
});

test("the CA's Retry-After reaches the caller, on registration and on an order", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'outpost-acme-'));
  const refusingAccounts = await startRefusingCa('newAccount', '120');
  // An HTTP date, an hour ahead (HTTP dates have whole seconds).
  const retryAt = Math.floor((Date.now() + 3_600_000) / 1000) * 1000;
  const refusingOrders = await startRefusingCa('newOrder', new Date(retryAt).toUTCString());
  try {
    const refused = await t.throwsAsync(openAcmeAccount({ acceptTerms: true, directoryUrl: refusingAccounts.directoryUrl, dir, generateKey }), {
      instanceOf: AcmeOrderError,
      code: 'ERR_ACME_ORDER',
    });
    t.is(refused?.retryAfterSeconds, 120);
    t.regex(
      refused?.message ?? '',
      /^acme: registering the account at http:\/\/127\.0\.0\.1:\d+\/dir failed: too many new orders recently \(the CA asks to retry after 120 s\)$/,
    );
    const account = await openAcmeAccount({ acceptTerms: true, directoryUrl: refusingOrders.directoryUrl, dir, generateKey });
    try {
      const context = {
        account,
        dns: createDnsProvider({ provider: 'noop', zone: 'example.test' }),
        authoritative: new AuthoritativeDns({ nameservers: ['127.0.0.1:9'] }),
        propagation: { timeoutMs: 1000 },
        generateKey,
      };
      const error = await t.throwsAsync(issueCertificate({ name: 'app.example.test', keyType: 'ecdsa-p256' }, context), { instanceOf: AcmeOrderError });
      // The date read as the seconds left until it, some time after it was written.
      const leftNow = Math.floor((retryAt - Date.now()) / 1000);
      const seconds = error?.retryAfterSeconds ?? -1;
      t.true(seconds >= leftNow && seconds <= 3600, `${seconds} s, ${leftNow} s left now`);
      t.regex(error?.message ?? '', /^acme: creating the order for app\.example\.test failed: too many new orders recently/);
    } finally {
      account.close();
    }
  } finally {
    await Promise.all([refusingAccounts.close(), refusingOrders.close(), rm(dir, { recursive: true, force: true })]);
  }
});

test('a CA that is down, and one whose TLS is not trusted, are told apart', withAcme, async (t, fixture) => {
  const closedPort = await reservePort('127.0.0.1');
  await t.throwsAsync(
    openAcmeAccount({ acceptTerms: true, directoryUrl: `https://127.0.0.1:${closedPort}/dir`, dir: join(fixture.dir, 'down'), generateKey }),
    {
      code: 'ERR_ACME_ORDER',
      message: new RegExp(
        `^acme: registering the account at https://127\\.0\\.0\\.1:${closedPort}/dir failed: cannot reach https://127\\.0\\.0\\.1:${closedPort}: ECONNREFUSED`,
      ),
    },
  );
  // Without acme.ca_bundle, Pebble's certificate is signed by a CA the system does not know (and Pebble sends no chain).
  await t.throwsAsync(openAcmeAccount({ acceptTerms: true, directoryUrl: fixture.pebble.directoryUrl, dir: join(fixture.dir, 'untrusted'), generateKey }), {
    code: 'ERR_ACME_ORDER',
    message: /failed: cannot reach https:\/\/127\.0\.0\.1:\d+: UNABLE_TO_VERIFY_LEAF_SIGNATURE unable to verify the first certificate$/,
  });
});
