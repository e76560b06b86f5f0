// CA fallback end to end: certhub with two Pebbles in acme.cas, the first stopped. The domain's
// attempts at the first fail, the next goes to the second, which issues it; the admin API shows which
// CA did, each CA has an account folder of its own, and the renewal asked for once the first is back
// goes to the first again.
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { startPebble } from '../../../benchmarks/third-party/pebble.js';
import { acmeFolder, separateAccountFolder } from '../../../actors/cert/acme/account-folders.js';
import { startCertStack, stopCertStack } from '../../helpers/cert-stack.js';
import { certhubDataDir, startCerthub } from '../../helpers/certhub.js';
import { addDomain, powerdnsSection, waitForDomain } from '../../helpers/certhub-domains.js';

test('the first CA down: the domain is issued by the second, shows it, and its renewal goes to the first again', async (t) => {
  const stack = await startCertStack();
  const second = await startPebble({ dnsServer: stack.powerdns.nameserver });
  try {
    const first = stack.pebble;
    await first.halt();
    const dataDir = await certhubDataDir(t, {
      dns: powerdnsSection(stack.powerdns),
      acme: {
        accept_terms: true,
        fallback_after: 2,
        retry_backoff_seconds: 1,
        cas: [
          { directory_url: first.directoryUrl, ca_bundle: first.caFile },
          { directory_url: second.directoryUrl, ca_bundle: second.caFile },
        ],
      },
      propagation: { nameservers: [stack.powerdns.nameserver], timeout_seconds: 30 },
    });
    const server = await startCerthub(t, dataDir, []);
    await addDomain(server, 'app', '203.0.113.5');
    const issued = await waitForDomain(server, 'app', (domain) => domain.status === 'issued', 120_000);
    t.is(issued.status, 'issued', JSON.stringify(issued));
    t.is(issued.issued_by, second.directoryUrl);
    const log = server.stdout() + server.stderr();
    t.regex(log, /issuing app\.example\.test failed at https:\/\/127\.0\.0\.1:\d+\/dir \(attempt 1\): .*cannot reach/);
    t.true(log.includes(`after 2 failed attempts in a row at ${first.directoryUrl}, the next attempt goes to ${second.directoryUrl}`), log);
    t.is((await stat(join(separateAccountFolder(dataDir, second.directoryUrl), 'account.json'))).mode & 0o777, 0o600, 'the second CA has its own account');

    await first.start();
    const renewing = await server.admin('api/admin/domains/app/renew', { method: 'POST' });
    t.is(renewing.status, 200, await renewing.text());
    const renewed = await waitForDomain(server, 'app', (domain) => domain.status === 'issued' && domain.issued_by === first.directoryUrl, 120_000);
    t.is(renewed.issued_by, first.directoryUrl, 'the renewal starts from the first CA');
    t.is((await stat(join(acmeFolder(dataDir), 'account.json'))).mode & 0o777, 0o600, 'the first CA keeps acme/');
  } finally {
    await Promise.all([second.stop(), stopCertStack(stack)]);
  }
});
