// certhub bound to loopback answers only loopback Host values and the names of config.json's
// allowed_hosts: a DNS-rebinding page must not reach the panel's API.
import test from 'ava';
import { certhubDataDir, startCerthub } from '../../helpers/certhub.js';
import { pipelined } from '../../helpers/raw-http.js';

test('certhub on loopback answers allowed_hosts from config.json and refuses other Hosts with 421', async (t) => {
  const server = await startCerthub(t, await certhubDataDir(t, { allowed_hosts: ['certhub.example.test'] }));
  const port = Number(new URL(server.url).port);
  const ask = async (host: string) => {
    const [answer] = await pipelined(port, [{ method: 'GET', path: '/api/version', headers: { Host: host } }]);
    return answer;
  };
  for (const host of [`certhub.example.test:${port}`, `localhost:${port}`, `127.0.0.1:${port}`]) t.is((await ask(host))?.status, 200, host);
  const refused = await ask(`rebound.example.test:${port}`);
  t.is(refused?.status, 421);
  t.regex(refused?.body.toString() ?? '', /^\{"error":"this server does not answer requests for the host/);
});
