// certhub-agent proxy with large bodies: 200 MB each way streams through intact, and a renewal on disk
// during a long download is served to the next handshake without cutting the download.
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { Agent } from 'node:https';
import test from 'ava';
import { keptAliveGet, proxiedRequest, presentedCertificate, startOneRouteProxy, writeTestMaterial, bodyText } from '../../helpers/agent-proxy.js';
import { downloadDigest, downloadStream } from '../../helpers/proxy-backend.js';

const bigBytes = 200_000_000;

async function digestOf(response: IncomingMessage): Promise<{ bytes: number; sha256: string }> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of response) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return { bytes, sha256: hash.digest('hex') };
}

test('a 200 MB upload and a 200 MB download stream through the proxy intact', async (t) => {
  const { proxy } = await startOneRouteProxy(t, '0a', 200);
  const expected = await downloadDigest(bigBytes);

  const upload = await proxiedRequest(proxy.port, 'alpha.test', {
    method: 'POST',
    path: '/upload',
    headers: { 'content-length': String(bigBytes) },
    body: downloadStream(bigBytes),
  });
  t.is(upload.statusCode, 200);
  t.deepEqual(JSON.parse(await bodyText(upload)), { name: 'alpha', bytes: bigBytes, sha256: expected });

  const download = await proxiedRequest(proxy.port, 'alpha.test', { path: `/download?bytes=${bigBytes}` });
  t.is(download.statusCode, 200);
  t.is(download.headers['content-length'], String(bigBytes));
  t.deepEqual(await digestOf(download), { bytes: bigBytes, sha256: expected });
});

/** A GET on a kept-alive connection of `agent`: the status, the local port of the connection and the certificate it negotiated. */
test('material renewed on disk during a long download: the download completes, the next handshake gets the new certificate', async (t) => {
  const { proxy, materialDir } = await startOneRouteProxy(t, '0a', 200);
  t.is((await presentedCertificate(proxy.port, 'alpha.test')).serialNumber, '0A');
  // An idle kept-alive connection from before the renewal must serve requests after it too.
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  t.teardown(() => agent.destroy());
  const before = await keptAliveGet(agent, proxy.port, 'alpha.test');
  t.like(before, { status: 200, serialNumber: '0A' });

  const download = await proxiedRequest(proxy.port, 'alpha.test', { path: `/download?bytes=${bigBytes}` });
  t.is(download.statusCode, 200);
  // Hold the download open, part read, while the material is replaced.
  const hash = createHash('sha256');
  let bytes = 0;
  const first = await new Promise<Buffer>((resolve) => download.once('data', resolve));
  download.pause();
  hash.update(first);
  bytes += first.length;

  await writeTestMaterial(materialDir, 'alpha.test', '0b');
  // Each of the two front threads reports its own swap.
  await proxy.process.waitFor(/renewed certificate served[^\n]*serial=0B[\s\S]*renewed certificate served[^\n]*serial=0B/);
  for (let handshake = 0; handshake < 4; handshake++)
    t.like(await presentedCertificate(proxy.port, 'alpha.test'), { subject: 'CN=alpha.test', serialNumber: '0B' });

  t.deepEqual(await keptAliveGet(agent, proxy.port, 'alpha.test'), before, 'the kept-alive connection goes on with the certificate it negotiated');

  download.resume();
  for await (const chunk of download) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  t.deepEqual({ bytes, sha256: hash.digest('hex') }, { bytes: bigBytes, sha256: await downloadDigest(bigBytes) });
});
