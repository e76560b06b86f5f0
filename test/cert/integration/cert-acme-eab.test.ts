// External account binding against Pebble run with externalAccountBindingRequired and its
// externalAccountMACKeys (RFC 8555 §7.3.4): the account registers with acme.eab's kid and HMAC key,
// and issues; without them, or with a key the CA does not hold, the registration fails with the CA's
// reason. Then certhub run with acme.eab issues a domain.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { openAcmeAccount } from '../../../actors/cert/acme/account.js';
import { issueCertificate } from '../../../actors/cert/acme/order.js';
import { AuthoritativeDns } from '../../../actors/cert/acme/propagation.js';
import { createDnsProvider } from '../../../actors/cert/dns/providers/create.js';
import { generatePrivateKeyPem } from '../../../actors/cert/private-key.js';
import type { KeyType } from '../../../actors/cert/key-types.js';
import { startCertStack, stopCertStack } from '../../helpers/cert-stack.js';
import { certhubDataDir, startCerthub } from '../../helpers/certhub.js';
import { addDomain, powerdnsSection, settled, waitForDomain } from '../../helpers/certhub-domains.js';
import { tempDir } from '../../helpers/qpool.js';

const kid = 'kid-outpost';
const hmacKey = Buffer.alloc(48, 0x5a).toString('base64url');
const eabSettings = { externalAccountBindingRequired: true, externalAccountMACKeys: { [kid]: hmacKey } };
const generateKey = (keyType: KeyType) => Promise.resolve(generatePrivateKeyPem({ keyType }));

test('Pebble requiring EAB: an account with acme.eab registers and issues; without it or with a wrong key it is refused', async (t) => {
  const stack = await startCertStack({}, { settings: eabSettings });
  try {
    const caBundlePem = await readFile(stack.pebble.caFile, 'utf8');
    const dir = await tempDir(t, 'eab-');
    const open = (folder: string, eab?: { kid: string; hmac_key: string }) =>
      openAcmeAccount({
        acceptTerms: true,
        directoryUrl: stack.pebble.directoryUrl,
        caBundlePem,
        dir: join(dir, folder),
        generateKey,
        ...(eab === undefined ? {} : { eab }),
      });
    await t.throwsAsync(open('none'), { message: /registering the account at .* failed: .*'externalAccountBinding'/ });
    await t.throwsAsync(open('wrong', { kid, hmac_key: Buffer.alloc(48, 0x11).toString('base64url') }), { message: /registering the account at .* failed/ });
    const account = await open('bound', { kid, hmac_key: hmacKey });
    t.teardown(() => account.close());
    t.regex(account.accountUrl, /^https:\/\/127\.0\.0\.1:\d+\//);
    const { powerdns } = stack;
    const issued = await issueCertificate(
      { name: `bound.${powerdns.zone}`, keyType: 'ecdsa-p256' },
      {
        account,
        dns: createDnsProvider({ provider: 'powerdns', server_url: powerdns.apiUrl, api_token: powerdns.apiKey, zone: powerdns.zone }),
        authoritative: new AuthoritativeDns({ nameservers: [powerdns.nameserver] }),
        propagation: { timeoutMs: 30_000, intervalMs: 50 },
        generateKey,
      },
    );
    t.truthy(issued.certPem);
  } finally {
    await stopCertStack(stack);
  }
});

test('certhub run with acme.eab issues against a CA that requires it', async (t) => {
  const stack = await startCertStack({}, { settings: eabSettings });
  try {
    const dataDir = await certhubDataDir(t, {
      dns: powerdnsSection(stack.powerdns),
      acme: { directory_url: stack.pebble.directoryUrl, ca_bundle: stack.pebble.caFile, accept_terms: true, eab: { kid, hmac_key: hmacKey } },
      propagation: { nameservers: [stack.powerdns.nameserver], timeout_seconds: 30 },
    });
    const server = await startCerthub(t, dataDir, []);
    await addDomain(server, 'bound', '203.0.113.8');
    const domain = await waitForDomain(server, 'bound', settled, 60_000);
    t.is(domain.status, 'issued', domain.error ?? '');
  } finally {
    await stopCertStack(stack);
  }
});
