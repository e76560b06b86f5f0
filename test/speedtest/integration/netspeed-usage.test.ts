// netspeed as a newcomer meets it: usage errors exit 2, a server that is not
// netspeed is named for what it answered, and requests are logged at debug only.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import { projectPath, runToEnd, startProcess } from '../../helpers/process.js';

const netspeed = (...args: string[]) => runToEnd(process.execPath, [projectPath('dist/bin/netspeed.js'), ...args]);

test('a server address that cannot be one is a usage error (exit 2)', async (t) => {
  for (const [address, reason] of [
    ['127.0.0.1:99999', /127\.0\.0\.1:99999 is not a server address/],
    ['ftp://example.net', /only http:\/\/ and https:\/\/ servers are supported/],
  ] as const) {
    const result = await netspeed(address);
    t.is(result.code, 2, address);
    t.regex(result.stderr, /^netspeed: /, address);
    t.regex(result.stderr, reason, address);
  }
});

test('netspeed serve suggests the server command', async (t) => {
  const result = await netspeed('serve', '-p', '1');
  t.is(result.code, 2);
  t.regex(result.stderr, /^netspeed: serve is not a command or a server address; did you mean netspeed server\?/);
});

test('a server that answers 404 at /api/info is reported as such', async (t) => {
  const other = createServer((_request, response) => response.writeHead(404, { 'content-type': 'text/plain' }).end('not here'));
  await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
  t.teardown(() => other.close());
  const { port } = other.address() as AddressInfo;
  const result = await netspeed(`127.0.0.1:${port}`);
  t.is(result.code, 1);
  t.regex(result.stderr, new RegExp(`^netspeed: http://127\\.0\\.0\\.1:${port} answered 404 at /api/info: not a netspeed server\\?`));
});

test('netspeed server logs each request at debug, not info', async (t) => {
  for (const debug of [false, true]) {
    const server = startProcess(t, process.execPath, [
      projectPath('dist/bin/netspeed.js'),
      'server',
      '-H',
      '127.0.0.1',
      '-p',
      '0',
      ...(debug ? ['--debug'] : []),
    ]);
    const [url] = await server.waitFor(/^http:\/\/127\.0\.0\.1:\d+\/$/m);
    const response = await fetch(`${url}api/info`);
    t.is(response.status, 200);
    await response.arrayBuffer();
    if (debug) await server.waitFor(/debug +\[speedtest\/http-front\S*\] GET \/api\/info 200/);
    server.child.kill('SIGTERM');
    t.is(await server.exited, 0);
    t.is(/GET \/api\/info 200/.test(server.stderr()), debug, server.stderr());
  }
});
