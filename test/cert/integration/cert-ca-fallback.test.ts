// CA fallback end to end: certhub with two Pebbles in acme.cas, the first stopped. The domain's
// attempts at the first fail, the next goes to the second, which issues it; the admin API shows which
// CA did, each CA has an account folder of its own, and the renewal asked for once the first is back
// goes to the first again. A webhook hears of the switch (ca_fallback, naming the next CA) before the
// issue (issued, naming the CA that issued).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { startPebble } from '../../../benchmarks/third-party/pebble.js';
import { acmeFolder, separateAccountFolder } from '../../../actors/cert/acme/account-folders.js';
import { startCertStack, stopCertStack } from '../../helpers/cert-stack.js';
import { certhubDataDir, startCerthub } from '../../helpers/certhub.js';
import { addDomain, powerdnsSection, waitForDomain } from '../../helpers/certhub-domains.js';
import { eventually } from '../../helpers/fixture-host.js';
import type { DomainNotice } from '../../../actors/cert/domains/notices.js';

/** A local webhook receiver keeping every notice posted to it. */
async function noticeReceiver(t: ExecutionContext): Promise<{ url: string; notices: DomainNotice[] }> {
  const notices: DomainNotice[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      notices.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as DomainNotice);
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, notices };
}

test('the first CA down: the domain is issued by the second, shows it, and its renewal goes to the first again', async (t) => {
  const stack = await startCertStack();
  const second = await startPebble({ dnsServer: stack.powerdns.nameserver });
  try {
    const first = stack.pebble;
    await first.halt();
    const receiver = await noticeReceiver(t);
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
      notify: { channels: [{ type: 'webhook', url: receiver.url, events: ['ca_fallback', 'issued'] }] },
    });
    const server = await startCerthub(t, dataDir, []);
    await addDomain(server, 'app', '203.0.113.5');
    const issued = await waitForDomain(server, 'app', (domain) => domain.status === 'issued', 120_000);
    t.is(issued.status, 'issued', JSON.stringify(issued));
    t.is(issued.issued_by, second.directoryUrl);
    const log = server.stdout() + server.stderr();
    t.regex(log, /issuing app\.example\.test failed at https:\/\/127\.0\.0\.1:\d+\/dir \(attempt 1\): .*cannot reach/);
    t.true(log.includes(`after 2 failed attempts in a row at ${first.directoryUrl}, the next attempt goes to ${second.directoryUrl}`), log);
    const heard = (event: string) => receiver.notices.find((notice) => notice.event === event);
    t.true(await eventually(() => Promise.resolve(heard('issued') !== undefined)), JSON.stringify(receiver.notices));
    const [fallback, issuedNotice] = [heard('ca_fallback'), heard('issued')];
    t.deepEqual([fallback?.domain, fallback?.ca], ['app.example.test', second.directoryUrl], JSON.stringify(receiver.notices));
    t.deepEqual([issuedNotice?.domain, issuedNotice?.ca], ['app.example.test', second.directoryUrl]);
    t.true((fallback?.at ?? '') <= (issuedNotice?.at ?? ''), 'the switch is told before the issue');
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
