// Notifications across a real restart: a real `certhub run` on the stack (PowerDNS + Pebble) tells a
// signed webhook of an issuance; the receiver refuses its first three deliveries; certhub is stopped
// (SIGTERM) while the delivery waits for its next attempt, and started again on the same data folder:
// the receiver takes the notice exactly once, with the one delivery id and a valid signature, and
// the queue's folder is empty after.
import { readdir, writeFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import test from 'ava';
import type { DomainNotice } from '../../../actors/cert/domains/notices.js';
import { queueDirName } from '../../../actors/cert/notify/queue.js';
import { verifySignature } from '../../../actors/cert/notify/signature.js';
import { startCertStack, stopCertStack } from '../../helpers/cert-stack.js';
import { powerdnsSection, stackSections } from '../../helpers/certhub-domains.js';
import { certhubDataDir, startCerthub } from '../../helpers/certhub.js';
import { addIssuedDomain } from '../../helpers/certhub-agent.js';
import { eventually } from '../../helpers/fixture-host.js';

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  status: number;
}

const secret = 'whsec-restart-0123456789abcdef';

test('a signed webhook failing its first three deliveries takes the notice once, across a SIGTERM and a new start of certhub', async (t) => {
  const received: Received[] = [];
  const receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const status = received.length < 3 ? 503 : 200;
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), status });
      response.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => receiver.close(() => resolve())));
  const stack = await startCertStack();
  try {
    const secretFile = join(await certhubDataDir(t), 'webhook-secret');
    await writeFile(secretFile, `${secret}\n`, { mode: 0o600 });
    const dataDir = await certhubDataDir(t, {
      dns: powerdnsSection(stack.powerdns),
      ...stackSections(stack, [stack.powerdns.nameserver], 30),
      notify: {
        retry_seconds: 2,
        channels: [
          {
            type: 'webhook',
            name: 'ops',
            url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/ops`,
            secret_file: secretFile,
            events: ['issued'],
          },
        ],
      },
    });
    const first = await startCerthub(t, dataDir, []);
    const { name } = await addIssuedDomain(first, 'app', 60_000);
    t.true(await eventually(() => Promise.resolve(received.length >= 1), 30_000, 50), 'the first delivery is refused');
    first.child.kill('SIGTERM');
    t.is(await first.exited, 0, 'certhub stops cleanly');
    const left = await readdir(join(dataDir, queueDirName));
    t.is(left.filter((file) => file.endsWith('.json')).length, 1, 'the delivery waits in the queue');
    t.true(received.length < 4, 'not yet taken when certhub stopped');

    const second = await startCerthub(t, dataDir, []);
    t.true(
      await eventually(() => Promise.resolve(received.some((request) => request.status === 200)), 60_000, 100),
      JSON.stringify(received.map((r) => r.status)),
    );
    t.true(await eventually(async () => (await readdir(join(dataDir, queueDirName))).length === 0, 10_000, 100), 'the queue is empty after');
    // Another attempt, were one to come, would come within the first retry's delay.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    t.deepEqual(
      received.map((request) => request.status),
      [503, 503, 503, 200],
      'three refusals, then the one delivery',
    );
    t.is(new Set(received.map((request) => request.headers['x-certhub-delivery'])).size, 1, 'one delivery id on every attempt');
    const delivered = received[3];
    if (delivered === undefined) return;
    const notice = JSON.parse(delivered.body) as DomainNotice;
    t.like(notice, { event: 'issued', domain: name });
    t.is(delivered.headers['x-certhub-event'], 'issued');
    t.true(verifySignature(secret, String(delivered.headers['x-certhub-signature']), delivered.body, Math.floor(Date.now() / 1000)), 'signed');
    t.false(second.stdout().includes(secret) || second.stderr().includes(secret), 'the secret is not logged');
    second.child.kill('SIGTERM');
    t.is(await second.exited, 0);
  } finally {
    await stopCertStack(stack);
  }
});
