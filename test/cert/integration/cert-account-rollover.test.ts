// `certhub account rollover -d DIR` against Pebble (RFC 8555 §7.3.5): after it, orders work with the
// new key and the CA refuses the old one. A crash at either point of the rollover leaves an account
// that works: with account.key.next written but the CA not asked, the next open removes it and the
// old key goes on; with the CA's answer in but the rename not done, the next open renames it.
// The command refuses a data directory without an account, and one a certhub run holds.
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import acme from 'acme-client';
import { openAcmeAccount, type AcmeAccount } from '../../../actors/cert/acme/account.js';
import { CaConnection } from '../../../actors/cert/acme/ca-connection.js';
import { issueCertificate } from '../../../actors/cert/acme/order.js';
import { AuthoritativeDns } from '../../../actors/cert/acme/propagation.js';
import { createDnsProvider } from '../../../actors/cert/dns/providers/create.js';
import { generatePrivateKeyPem } from '../../../actors/cert/private-key.js';
import { startCertStack, stopCertStack, type CertStack } from '../../helpers/cert-stack.js';
import { certhubDataDir, startCerthub } from '../../helpers/certhub.js';
import { powerdnsSection, stackSections } from '../../helpers/certhub-domains.js';
import { projectPath, runToEnd } from '../../helpers/process.js';

const certhubBin = projectPath('dist/bin/certhub.js');

const generateKey = () => Promise.resolve(generatePrivateKeyPem({ keyType: 'ecdsa-p256' }));

interface Setting {
  stack: CertStack;
  dataDir: string;
  caBundlePem: string;
  open(): Promise<AcmeAccount>;
  /** Orders a certificate for `label` with the account; resolves when it is issued. */
  issue(account: AcmeAccount, label: string): Promise<void>;
}

async function withStack(t: ExecutionContext, body: (setting: Setting) => Promise<void>): Promise<void> {
  const stack = await startCertStack();
  try {
    const dataDir = await certhubDataDir(t, { dns: powerdnsSection(stack.powerdns), ...stackSections(stack, [stack.powerdns.nameserver], 30) });
    const caBundlePem = await readFile(stack.pebble.caFile, 'utf8');
    const { powerdns } = stack;
    await body({
      stack,
      dataDir,
      caBundlePem,
      open: () => openAcmeAccount({ acceptTerms: true, directoryUrl: stack.pebble.directoryUrl, caBundlePem, dir: join(dataDir, 'acme'), generateKey }),
      issue: async (account, label) => {
        const issued = await issueCertificate(
          { name: `${label}.${powerdns.zone}`, keyType: 'ecdsa-p256' },
          {
            account,
            dns: createDnsProvider({ provider: 'powerdns', server_url: powerdns.apiUrl, api_token: powerdns.apiKey, zone: powerdns.zone }),
            authoritative: new AuthoritativeDns({ nameservers: [powerdns.nameserver] }),
            propagation: { timeoutMs: 30_000, intervalMs: 50 },
            generateKey,
          },
        );
        t.regex(issued.certPem, /BEGIN CERTIFICATE/);
      },
    });
  } finally {
    await stopCertStack(stack);
  }
}

function rollover(dataDir: string): ReturnType<typeof runToEnd> {
  return runToEnd(process.execPath, [certhubBin, 'account', 'rollover', '-d', dataDir]);
}

/** Signs a request for `accountUrl` with `key` (a new order): resolves to the CA's refusal, or undefined when it took it. */
async function refusalOf(setting: Setting, accountUrl: string, key: string): Promise<string | undefined> {
  const client = new acme.Client({ directoryUrl: setting.stack.pebble.directoryUrl, accountKey: key, accountUrl });
  const connection = new CaConnection(setting.caBundlePem);
  try {
    await connection.run(() => client.createOrder({ identifiers: [{ type: 'dns', value: `refused.${setting.stack.powerdns.zone}` }] }));
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    connection.close();
  }
}

const accountKey = (dataDir: string) => readFile(join(dataDir, 'acme', 'account.key'), 'utf8');
const nextKeyPresent = (dataDir: string) =>
  stat(join(dataDir, 'acme', 'account.key.next')).then(
    () => true,
    () => false,
  );

test('after a rollover, orders work with the new key and the CA refuses the old one', async (t) => {
  await withStack(t, async (setting) => {
    const { dataDir } = setting;
    const before = await setting.open();
    await setting.issue(before, 'before');
    before.close();
    const oldKey = await accountKey(dataDir);

    const result = await rollover(dataDir);
    t.is(result.code, 0, result.stderr);
    t.regex(
      result.stdout,
      new RegExp(
        `^certhub: account ${before.accountUrl.replace(/[.?]/g, '\\$&')} has a new ecdsa-p256 key in .*account\\.key; the CA refuses the old one\\.\\n$`,
      ),
    );
    const newKey = await accountKey(dataDir);
    t.not(newKey, oldKey);
    t.is((await stat(join(dataDir, 'acme', 'account.key'))).mode & 0o777, 0o600);
    t.false(await nextKeyPresent(dataDir));

    const after = await setting.open();
    t.teardown(() => after.close());
    t.is(after.accountUrl, before.accountUrl, 'the same account');
    await setting.issue(after, 'after');
    t.is(await refusalOf(setting, before.accountUrl, newKey), undefined);
    t.truthy(await refusalOf(setting, before.accountUrl, oldKey), 'the old key is refused');
  });
});

test('a crash before the CA answered leaves the old key working; after it, the next open keeps the new key', async (t) => {
  await withStack(t, async (setting) => {
    const { dataDir } = setting;
    const first = await setting.open();
    const accountUrl = first.accountUrl;
    first.close();
    const oldKey = await accountKey(dataDir);

    // The next key written, the CA not asked yet.
    await writeFile(join(dataDir, 'acme', 'account.key.next'), await generateKey(), { mode: 0o600 });
    const undone = await setting.open();
    t.false(await nextKeyPresent(dataDir), 'a next key the CA does not know is removed');
    t.is(await accountKey(dataDir), oldKey);
    await setting.issue(undone, 'undone');

    // The CA took the next key; the rename over account.key did not happen.
    const newKey = await generateKey();
    await writeFile(join(dataDir, 'acme', 'account.key.next'), newKey, { mode: 0o600 });
    await undone.connection.run(() => undone.client.updateAccountKey(newKey));
    undone.close();
    const finished = await setting.open();
    t.teardown(() => finished.close());
    t.false(await nextKeyPresent(dataDir));
    t.is(await accountKey(dataDir), newKey, 'the key the CA holds is kept');
    t.is(finished.accountUrl, accountUrl);
    await setting.issue(finished, 'finished');
    t.truthy(await refusalOf(setting, accountUrl, oldKey), 'the old key is refused');
  });
});

test('rollover refuses a data directory without an account, and one a certhub run holds', async (t) => {
  await withStack(t, async (setting) => {
    const { dataDir } = setting;
    const none = await rollover(dataDir);
    t.is(none.code, 2, none.stderr);
    t.regex(none.stderr, /names no account at https:\/\/127\.0\.0\.1:\d+\/dir: certhub registers one at its first order/);
    const account = await setting.open();
    account.close();
    const server = await startCerthub(t, dataDir, []);
    const held = await rollover(dataDir);
    t.is(held.code, 1, held.stderr);
    t.regex(held.stderr, new RegExp(`cannot use the data directory ${dataDir}: it is in use by .*\\(pid ${server.child.pid}\\)`));
  });
});
