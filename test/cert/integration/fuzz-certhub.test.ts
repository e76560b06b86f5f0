// certhub (demo CA) fuzzed from its own /api/spec (test/helpers/fuzz-run.ts), with every credential
// its routes take, right and wrong: the admin key, a panel session, a domain's token, none. Every
// answer documented, the server up and its memory bounded after the run.
import test from 'ava';
import { fuzzOpenApi } from '../../helpers/fuzz-run.js';
import { certhubDataDir, startCerthub, testAdminKey } from '../../helpers/certhub.js';

test('certhub: every fuzzed request, with and without credentials, gets a documented answer, the server stays up, RSS stays bounded', async (t) => {
  const server = await startCerthub(t, await certhubDataDir(t));
  const added = await server.admin('api/admin/domains', { method: 'POST', body: { name: 'fuzz', target: '203.0.113.7' } });
  t.is(added.status, 201);
  const { token } = (await added.json()) as { token: string };
  const login = await fetch(`${server.url}api/admin/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: server.url.slice(0, -1) },
    body: JSON.stringify({ key: testAdminKey }),
  });
  t.is(login.status, 204);
  const session = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const pid = server.child.pid;
  if (pid === undefined) throw new Error('certhub has no pid');
  await fuzzOpenApi(
    t,
    { url: server.url, pid, cors: false },
    {
      seed: 28_1_1,
      numRuns: 600,
      options: {
        credentials: {
          none: {},
          adminKey: { authorization: `Bearer ${testAdminKey}` },
          session: { cookie: session },
          domainToken: { authorization: `Bearer ${token}` },
          wrongKey: { authorization: `Bearer ${testAdminKey}x` },
        },
        knownParameters: ['fuzz', 'fuzz.example.test', 'FUZZ', 'other.example.test'],
      },
    },
  );
});
