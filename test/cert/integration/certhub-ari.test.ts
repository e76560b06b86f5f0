// ARI (RFC 9773) through a real certhub on Pebble + PowerDNS. Debian's Pebble (2.4) offers no
// renewalInfo, so a small HTTPS front stands in for its directory: it answers the directory with
// Pebble's own plus `renewalInfo`, and the renewalInfo resource with the window the test chooses.
// Everything else (orders, challenges) goes to Pebble itself, at the URLs its directory names.
import { X509Certificate } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import test from 'ava';
import { ariCertId } from '../../../actors/cert/renewal/ari.js';
import { readCertificateFacts } from '../../../actors/cert/renewal/certificate-facts.js';
import { startCertStack, stopCertStack } from '../../helpers/cert-stack.js';
import { certhubDataDir, startCerthub } from '../../helpers/certhub.js';
import { testChain } from '../../helpers/certificates.js';
import { eventually } from '../../helpers/fixture-host.js';
import type { PebbleServer } from '../../../benchmarks/third-party/pebble.js';
import { tempDir } from '../../helpers/qpool.js';

interface AriFront {
  directoryUrl: string;
  /** CertIDs asked for, in order. */
  asked: string[];
  /** The window answered for every certificate. */
  window: { start: Date; end: Date };
  server: Server;
}

async function startAriFront(pebble: PebbleServer, cert: { certPem: string; keyPem: string }): Promise<AriFront> {
  const front: AriFront = {
    directoryUrl: '',
    asked: [],
    window: { start: new Date(Date.now() + 86_400_000), end: new Date(Date.now() + 2 * 86_400_000) },
    server: undefined as unknown as Server,
  };
  front.server = createServer({ cert: cert.certPem, key: cert.keyPem }, (request, response) => {
    const url = request.url ?? '';
    if (url === '/dir') {
      void pebble.get(pebble.directoryUrl).then(({ body }) => {
        const directory = { ...(JSON.parse(body) as object), renewalInfo: `${new URL(front.directoryUrl).origin}/renewal-info` };
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(directory));
      });
      return;
    }
    if (url.startsWith('/renewal-info/')) {
      front.asked.push(url.slice('/renewal-info/'.length));
      // A check a minute later at the soonest (certhub clamps Retry-After to a minute .. a day).
      response.writeHead(200, { 'content-type': 'application/json', 'retry-after': '60' }).end(
        JSON.stringify({
          suggestedWindow: { start: front.window.start.toISOString(), end: front.window.end.toISOString() },
          explanationURL: 'https://ca.example/why',
        }),
      );
      return;
    }
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => front.server.listen(0, '127.0.0.1', resolve));
  front.directoryUrl = `https://127.0.0.1:${(front.server.address() as AddressInfo).port}/dir`;
  return front;
}

interface Domain {
  status: string;
  error: string | null;
  token: string;
  renewal: { due_at: string | null; basis: string | null };
}

test("with renewalInfo offered, the renewal is planned inside the CA's window, asked for the certificate's CertID", async (t) => {
  const stack = await startCertStack();
  const { powerdns, pebble } = stack;
  const notBefore = new Date(Date.now() - 3_600_000);
  const frontCert = await testChain('localhost', { notBefore, notAfter: new Date(Date.now() + 86_400_000), ips: ['127.0.0.1'] });
  const front = await startAriFront(pebble, frontCert);
  try {
    const dir = await tempDir(t, 'certhub-ari-');
    const bundle = join(dir, 'ca-bundle.pem');
    await writeFile(bundle, (await readFile(pebble.caFile, 'utf8')) + frontCert.caPem);
    const dataDir = await certhubDataDir(t, {
      dns: { provider: 'powerdns', server_url: powerdns.apiUrl, api_token: powerdns.apiKey, zone: powerdns.zone },
      acme: { directory_url: front.directoryUrl, ca_bundle: bundle, accept_terms: true },
      propagation: { nameservers: [powerdns.nameserver], timeout_seconds: 30 },
    });
    const server = await startCerthub(t, dataDir, []);
    t.is((await server.admin('api/admin/domains', { method: 'POST', body: { name: 'ari', target: '203.0.113.9' } })).status, 201);
    let last: Domain | undefined;
    t.true(
      await eventually(
        async () => {
          last = (await (await server.admin('api/admin/domains/ari')).json()) as Domain;
          return last.status === 'error' || (last.status === 'issued' && last.renewal.basis === 'ari');
        },
        60_000,
        100,
      ),
      JSON.stringify(last),
    );
    t.is(last?.status, 'issued', last?.error ?? '');
    const dueAt = Date.parse(last?.renewal.due_at ?? '');
    t.true(dueAt >= front.window.start.getTime() && dueAt <= front.window.end.getTime(), `due at ${last?.renewal.due_at ?? ''}, inside the window`);

    const fetched = (await (await fetch(`${server.url}api/cert/ari`, { headers: { authorization: `Bearer ${last?.token ?? ''}` } })).json()) as {
      cert_pem: string;
    };
    const certId = ariCertId(readCertificateFacts(fetched.cert_pem));
    t.true(front.asked.includes(certId), `asked for ${certId}: ${front.asked.join(', ')}`);
    t.true(new X509Certificate(fetched.cert_pem).subjectAltName?.includes('DNS:ari.example.test') ?? false);
  } finally {
    await new Promise<void>((resolve) => front.server.close(() => resolve()));
    await stopCertStack(stack);
  }
});
