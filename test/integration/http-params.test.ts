import test from 'ava';
import { startFixtureHost } from '../helpers/fixture-host.js';
import { withServer } from '../helpers/with-server.js';

test(
  'a route parameter is percent-decoded; a malformed one answers 400 and the server serves on',
  withServer,
  ({ router }) => {
    router.get('/x/:id', (request, reply) => reply.json(200, { id: request.params.id }));
  },
  async (t, { url }) => {
    const decoded = await fetch(`${url}/x/caf%C3%A9%20au%20lait`);
    t.deepEqual(await decoded.json(), { id: 'café au lait' });
    for (const broken of ['%E0%A4%A', '%', '%zz', '%C3']) {
      const response = await fetch(`${url}/x/${broken}`);
      t.is(response.status, 400, broken);
      t.is(response.headers.get('content-type'), 'application/json; charset=utf-8');
      t.deepEqual(await response.json(), { error: 'the path parameter id is not valid percent-encoding' });
    }
    t.deepEqual(await (await fetch(`${url}/x/after`)).json(), { id: 'after' });
  },
);

test('a real front process survives a malformed route parameter', async (t) => {
  const host = await startFixtureHost(t);
  const refused = await fetch(`${host.url}params/%E0%A4%A`);
  t.is(refused.status, 400);
  t.deepEqual(await refused.json(), { error: 'the path parameter value is not valid percent-encoding' });
  t.deepEqual(await (await fetch(`${host.url}params/%E2%9C%93`)).json(), { value: '✓' });
  t.is((await fetch(`${host.url}ping`)).status, 200);
  t.is(host.child.exitCode, null, 'the process is still running');
  t.notRegex(host.stderr(), /crashed|uncaught/i);
});
