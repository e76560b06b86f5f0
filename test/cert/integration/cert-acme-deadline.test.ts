// A CA that accepts the connection and never answers (a partition that drops packets, a stuck proxy):
// each request to it ends at its deadline with the cause, instead of holding the order, and its place
// among the orders run at once, until a restart.
import { createServer, type Socket } from 'node:net';
import test from 'ava';
import { openAcmeAccount } from '../../../actors/cert/acme/account.js';
import { generatePrivateKeyPem } from '../../../actors/cert/private-key.js';
import { tempDir } from '../../helpers/qpool.js';

test('a CA that never answers: the request ends at its deadline, naming the CA and the timeout', async (t) => {
  const sockets = new Set<Socket>();
  // Reads what it is sent and answers nothing.
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.resume();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    for (const socket of sockets) socket.destroy();
    server.close();
  });
  const { port } = server.address() as { port: number };
  const opening = openAcmeAccount({
    acceptTerms: true,
    directoryUrl: `http://127.0.0.1:${port}/dir`,
    dir: await tempDir(t, 'acme-deadline-'),
    generateKey: (keyType) => Promise.resolve(generatePrivateKeyPem({ keyType })),
    requestTimeoutMs: 300,
  });
  const error = await t.throwsAsync(opening);
  t.regex(error?.message ?? '', new RegExp(`cannot reach http://127\\.0\\.0\\.1:${port}: ECONNABORTED timeout of 300ms exceeded`));
  t.true(sockets.size >= 1, 'the CA was reached and held the request');
});
