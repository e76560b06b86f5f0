// TLS to certhub is verified: a real certhub behind a TLS terminator with a certificate from a private
// CA is refused until that CA is given with --ca; an https:// URL to a plain HTTP server says so.
import { writeFile } from 'node:fs/promises';
import { connect, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createServer as createTlsServer } from 'node:tls';
import test from 'ava';
import { testChain } from '../../helpers/certificates.js';
import { certhubDataDir, startCerthub } from '../../helpers/certhub.js';
import { addIssuedDomain, materialState, runAgent } from '../../helpers/certhub-agent.js';
import { tempDir } from '../../helpers/qpool.js';

test('https with a private CA: refused without --ca (saying so), fetched with it; https to a plain server names the mistake', async (t) => {
  const server = await startCerthub(t, await certhubDataDir(t));
  const { name, token } = await addIssuedDomain(server, 'app');
  const certhubPort = Number(new URL(server.url).port);
  const now = Date.now();
  const chain = await testChain('localhost', { notBefore: new Date(now - 3_600_000), notAfter: new Date(now + 86_400_000), ips: ['127.0.0.1'] });
  const terminator = createTlsServer({ cert: chain.certPem, key: chain.keyPem }, (socket) => {
    const upstream = connect(certhubPort, '127.0.0.1');
    socket.pipe(upstream).pipe(socket);
    socket.on('error', () => upstream.destroy());
    upstream.on('error', () => socket.destroy());
  });
  await new Promise<void>((resolve) => terminator.listen(0, '127.0.0.1', resolve));
  t.teardown(() => void terminator.close());
  const httpsUrl = `https://127.0.0.1:${(terminator.address() as AddressInfo).port}`;
  const dir = await tempDir(t, 'agent-');
  const caFile = join(dir, 'ca.pem');
  await writeFile(caFile, chain.caPem);
  const out = join(dir, 'certs');

  const untrusted = await runAgent(['fetch', '--allow-untrusted', '-s', httpsUrl, '-t', token, '-d', name, '-o', out]);
  t.is(untrusted.code, 1);
  t.regex(untrusted.stderr, /TLS with https:\/\/127\.0\.0\.1:\d+ failed: .*\(a private CA\? pass it with --ca FILE\)/);

  const trusted = await runAgent(['fetch', '--allow-untrusted', '-s', httpsUrl, '-t', token, '-d', name, '-o', out, '--ca', caFile]);
  t.is(trusted.code, 0, trusted.stderr);
  t.is(trusted.stderr, '');
  t.regex((await materialState(out, name)).cert.content, /^-----BEGIN CERTIFICATE-----/);

  const plain = await runAgent(['fetch', '--allow-untrusted', '-s', server.url.replace('http:', 'https:'), '-t', token, '-d', name, '-o', out]);
  t.is(plain.code, 1);
  t.regex(plain.stderr, /TLS with https:\/\/127\.0\.0\.1:\d+ failed: the server does not speak TLS/);

  await writeFile(join(dir, 'not-a-ca.pem'), 'hello\n');
  const badCa = await runAgent(['fetch', '--allow-untrusted', '-s', httpsUrl, '-t', token, '-d', name, '--ca', join(dir, 'not-a-ca.pem')]);
  t.is(badCa.code, 2);
  t.regex(badCa.stderr, /--ca .*not-a-ca\.pem is not a PEM certificate/);
});
