// A private CA's trust: made once per CA, trusting that CA's servers (the system's roots, also in it,
// cannot be met offline).
import { once } from 'node:events';
import { createServer } from 'node:https';
import { connect } from 'node:tls';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import { secureContextTrusting } from '../../src/net/extra-ca.js';
import { testChain } from '../helpers/certificates.js';

const day = 86_400_000;

test('one secure context per CA, reused; another CA gets its own', async (t) => {
  const first = await testChain('localhost', { notBefore: new Date(Date.now() - day), notAfter: new Date(Date.now() + day) });
  const second = await testChain('localhost', { notBefore: new Date(Date.now() - day), notAfter: new Date(Date.now() + day) });
  t.is(secureContextTrusting(first.caPem), secureContextTrusting(first.caPem));
  t.not(secureContextTrusting(first.caPem), secureContextTrusting(second.caPem));
});

test('a server of the private CA is trusted through the context; one of another CA is refused', async (t) => {
  const notBefore = new Date(Date.now() - day);
  const notAfter = new Date(Date.now() + day);
  const trusted = await testChain('localhost', { notBefore, notAfter, ips: ['127.0.0.1'] });
  const other = await testChain('localhost', { notBefore, notAfter, ips: ['127.0.0.1'] });
  const server = createServer({ cert: trusted.certPem, key: trusted.keyPem }).listen(0, '127.0.0.1');
  t.teardown(() => server.close());
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const handshake = (caPem: string) =>
    new Promise<string>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port, servername: 'localhost', secureContext: secureContextTrusting(caPem) }, () => {
        resolve('trusted');
        socket.end();
      });
      socket.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    });
  t.is(await handshake(trusted.caPem), 'trusted');
  t.not(await handshake(other.caPem), 'trusted');
});
