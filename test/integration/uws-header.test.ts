// No response names the server software: uWS adds `uWebSockets: 20` to every response unless its
// thread's loop is told otherwise (src/http/uws-app.ts), on the generic fronts and the proxy alike.
import { get, type IncomingMessage } from 'node:http';
import test from 'ava';
import { bodyText, proxiedRequest } from '../helpers/agent-proxy.js';
import { certhubDataDir, startCerthub } from '../helpers/certhub.js';
import { startTwoRouteProxy } from '../helpers/two-route-proxy.js';

test("certhub's answers carry no uWebSockets header", async (t) => {
  const server = await startCerthub(t, await certhubDataDir(t));
  for (const path of ['api/version', 'no-such-path', '']) {
    const response = await fetch(`${server.url}${path}`);
    await response.arrayBuffer();
    t.is(response.headers.get('uwebsockets'), null, `/${path} (${response.status})`);
  }
});

test("the proxy's own answers (421, the HTTPS redirect) carry no uWebSockets header", async (t) => {
  const { proxy } = await startTwoRouteProxy(t, { config: { redirect_port: 0 } });
  const misdirected = await proxiedRequest(proxy.port, 'alpha.test', { path: '/whoami', headers: { host: 'beta.test' } });
  await bodyText(misdirected);
  t.is(misdirected.statusCode, 421);
  t.is(misdirected.headers.uwebsockets, undefined);
  // fetch replaces a Host header with the URL's: node:http sends the one given.
  const redirect = await new Promise<IncomingMessage>((resolve, reject) =>
    get({ host: '127.0.0.1', port: proxy.redirectPort, path: '/', headers: { host: 'alpha.test' } }, resolve).once('error', reject),
  );
  await bodyText(redirect);
  t.is(redirect.statusCode, 308);
  t.is(redirect.headers.uwebsockets, undefined);
});
