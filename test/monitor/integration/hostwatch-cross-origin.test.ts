// hostwatch shows the process list and the listening ports of the machine: no other site's page may
// read them. Its answers carry no CORS header, so a browser keeps them from a page
// of another origin; the speed test API, which the spec opens to any origin, still sends one.
import test from 'ava';
import { startHostwatch } from '../../helpers/hostwatch.js';

test('hostwatch answers a cross-origin read or preflight without Access-Control-Allow-Origin', async (t) => {
  const host = await startHostwatch(t);
  const origin = { Origin: 'https://attacker.example' };
  for (const path of ['api/snapshot', 'api/spec', '']) {
    const response = await fetch(`${host.url}${path}`, { headers: origin });
    t.is(response.status, 200, path);
    t.is(response.headers.get('access-control-allow-origin'), null, `/${path}`);
    await response.body?.cancel();
  }
  const preflight = await fetch(`${host.url}api/snapshot`, { method: 'OPTIONS', headers: { ...origin, 'Access-Control-Request-Method': 'GET' } });
  t.is(preflight.headers.get('access-control-allow-origin'), null);
  t.is(preflight.headers.get('access-control-allow-methods'), null);
});
