// What certhub-agent trusts: material whose chain leads to no trusted root (here a
// certhub --demo answering as a man in the middle would, with a key and certificate of its own) is not
// written over good material; a remote http:// server is refused before any connection; with --pin the
// agent connects over HTTPS trusting exactly the certificate of that fingerprint, and sends nothing
// (not the token) to a server that shows another.
import { X509Certificate } from 'node:crypto';
import { readdir, writeFile } from 'node:fs/promises';
import { connect, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createServer as createTlsServer } from 'node:tls';
import test, { type ExecutionContext } from 'ava';
import { certificatePin } from '../../../actors/proxy/client/pinned-connection.js';
import { startAgentProxy } from '../../helpers/agent-proxy.js';
import { testChain } from '../../helpers/certificates.js';
import { certhubDataDir, startCerthub } from '../../helpers/certhub.js';
import { addIssuedDomain, materialState, runAgent } from '../../helpers/certhub-agent.js';
import { tempDir } from '../../helpers/qpool.js';

/** A TLS terminator with a certificate no CA vouches for (as certhub's self-signed one), in front of `port`; counts the bytes of requests (decrypted) clients sent. */
async function selfSignedFront(t: ExecutionContext, port: number): Promise<{ url: string; pin: string; received: () => number }> {
  const now = Date.now();
  const chain = await testChain('localhost', { notBefore: new Date(now - 3_600_000), notAfter: new Date(now + 86_400_000), ips: ['127.0.0.1'] });
  let received = 0;
  const front = createTlsServer({ cert: chain.certPem, key: chain.keyPem }, (socket) => {
    const upstream = connect(port, '127.0.0.1');
    socket.on('data', (chunk: Buffer) => (received += chunk.length));
    socket.pipe(upstream).pipe(socket);
    socket.on('error', () => upstream.destroy());
    upstream.on('error', () => socket.destroy());
  });
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  t.teardown(() => void front.close());
  return {
    url: `https://127.0.0.1:${(front.address() as AddressInfo).port}`,
    pin: certificatePin(new X509Certificate(chain.certPem).raw),
    received: () => received,
  };
}

test('material that leads to no trusted root replaces nothing: exit 1 naming the reason, the good files as they were', async (t) => {
  const server = await startCerthub(t, await certhubDataDir(t));
  const { name, token } = await addIssuedDomain(server, 'app');
  const out = await tempDir(t, 'agent-');
  t.is((await runAgent(['fetch', '--allow-untrusted', '-s', server.url, '-t', token, '-d', name, '-o', out])).code, 0);
  const before = await materialState(out, name);
  // The man in the middle: another demo certhub, its own key and self-signed certificate for the same name.
  const impostor = await startCerthub(t, await certhubDataDir(t));
  const forged = await addIssuedDomain(impostor, 'app');

  const refused = await runAgent(['fetch', '-s', impostor.url, '-t', forged.token, '-d', name, '-o', out]);
  t.is(refused.code, 1);
  t.regex(refused.stderr, /unusable material for app\.example\.test: the chain does not lead to a trusted root .*pass it with --ca-bundle FILE/);
  t.deepEqual(await materialState(out, name), before);
});

test('a remote http:// server is refused before connecting (exit 2) unless --insecure-http; a label alone is refused', async (t) => {
  const out = await tempDir(t, 'agent-');
  // 192.0.2.0/24 is TEST-NET-1: the refusal comes before any connection is tried.
  const remote = await runAgent(['fetch', '-s', 'http://192.0.2.7:8443', '-t', 'chd_x', '-d', 'app.example.test', '-o', out]);
  t.is(remote.code, 2);
  t.regex(
    remote.stderr,
    /-s, --server http:\/\/192\.0\.2\.7:8443 is plain http:\/\/ to another machine: the token and the private key would cross the network in clear; .*--insecure-http/,
  );
  const label = await runAgent(['fetch', '-s', 'https://certhub.example.test', '-t', 'chd_x', '-d', 'app', '-o', out]);
  t.is(label.code, 2);
  t.regex(label.stderr, /-d, --domain must have at least 2 labels .*: give the full name/);
});

test('--pin: the pinned certificate is trusted without a CA; another one is refused before the token is sent', async (t) => {
  const server = await startCerthub(t, await certhubDataDir(t));
  const { name, token } = await addIssuedDomain(server, 'app');
  const front = await selfSignedFront(t, Number(new URL(server.url).port));
  const out = await tempDir(t, 'agent-');

  const unpinned = await runAgent(['fetch', '--allow-untrusted', '-s', front.url, '-t', token, '-d', name, '-o', out]);
  t.is(unpinned.code, 1, 'no CA vouches for it');
  t.regex(unpinned.stderr, /TLS with https:\/\/127\.0\.0\.1:\d+ failed/);

  const pinned = await runAgent(['fetch', '--allow-untrusted', '-s', front.url, '-t', token, '-d', name, '-o', out, '--pin', front.pin]);
  t.is(pinned.code, 0, pinned.stderr);
  t.regex((await materialState(out, name)).cert.content, /^-----BEGIN CERTIFICATE-----/);

  const sentBefore = front.received();
  const otherPin = `sha256:${'0'.repeat(64)}`;
  const wrong = await runAgent(['fetch', '--allow-untrusted', '-s', front.url, '-t', token, '-d', name, '-o', out, '--pin', otherPin]);
  t.is(wrong.code, 1);
  t.regex(wrong.stderr, new RegExp(`its certificate \\(${front.pin}\\) is not the pinned one \\(${otherPin}\\)`));
  t.is(front.received(), sentBefore, 'not a byte of request (nor the token) reached the front');

  // The panel's Fetch JSON carries the pin as `pin`.
  const file = join(out, 'fetch.json');
  await writeFile(file, JSON.stringify({ server: front.url, domain: name, token, pin: front.pin }), { mode: 0o600 });
  const fromFile = await runAgent(['fetch', '--allow-untrusted', '-c', file, '-o', out]);
  t.is(fromFile.code, 0, fromFile.stderr);

  const plainWithPin = await runAgent(['fetch', '-s', server.url, '-t', token, '-d', name, '-o', out, '--pin', front.pin]);
  t.is(plainWithPin.code, 2);
  t.regex(plainWithPin.stderr, /--pin needs the server's https:\/\/ address/);
});

test('certhub-agent proxy fetches with the same checks: untrusted material is refused and not written, a pin is honoured', async (t) => {
  const server = await startCerthub(t, await certhubDataDir(t));
  const { name, token } = await addIssuedDomain(server, 'app');
  const front = await selfSignedFront(t, Number(new URL(server.url).port));
  const dir = await tempDir(t, 'agent-proxy-trust-');
  const routes = { [name]: { backend: '127.0.0.1:9', token } };
  const untrusted = await startAgentProxy(t, { server: server.url, routes, host: '127.0.0.1', port: 0, threads: 1, material_dir: join(dir, 'untrusted') });
  await untrusted.process.waitFor(/app\.example\.test: .*the chain does not lead to a trusted root/, 30_000);
  await t.throwsAsync(readdir(join(dir, 'untrusted', name)), { code: 'ENOENT' }, 'nothing written');

  const pinned = await startAgentProxy(t, {
    server: front.url,
    pin: front.pin,
    allow_untrusted: true,
    routes,
    host: '127.0.0.1',
    port: 0,
    threads: 1,
    material_dir: join(dir, 'pinned'),
  });
  await pinned.process.waitFor(/fetch: new material for app\.example\.test/, 30_000);
  t.regex((await materialState(join(dir, 'pinned'), name)).cert.content, /^-----BEGIN CERTIFICATE-----/);
});
