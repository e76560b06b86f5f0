// A page on any site can point a name it owns at 127.0.0.1 (DNS rebinding) and then read, as its own
// origin, what a loopback dashboard answers: the process list and listening ports.
// hostwatch bound to loopback answers only loopback Host values and the names of --allowed-host.
import { hostname, networkInterfaces } from 'node:os';
import { isIPv6 } from 'node:net';
import test from 'ava';
import { startHostwatch } from '../../helpers/hostwatch.js';
import { projectPath, runToEnd } from '../../helpers/process.js';
import { pipelined } from '../../helpers/raw-http.js';

async function statusFor(
  port: number,
  host: string,
  path = '/api/snapshot',
  method = 'GET',
): Promise<{ status: number; body: string; cors: string | undefined }> {
  const [answer] = await pipelined(port, [{ method, path, headers: { Host: host } }]);
  if (answer === undefined) throw new Error(`no answer for Host ${host}`);
  return { status: answer.status, body: answer.body.toString(), cors: answer.headers.get('access-control-allow-origin') };
}

test('hostwatch on loopback refuses a DNS-rebinding Host with 421 and answers loopback names and --allowed-host names', async (t) => {
  const hostwatch = await startHostwatch(t, ['--allowed-host', 'dash.example.test']);
  const port = Number(new URL(hostwatch.url).port);

  for (const evil of ['evil.example', `evil.example:${port}`, `127.0.0.1.evil.example:${port}`, `localhost.evil.example:${port}`, `[::2]:${port}`, '']) {
    for (const [method, path] of [
      ['GET', '/api/snapshot'],
      ['GET', '/'],
      ['GET', '/no/such/path'],
      ['HEAD', '/api/snapshot'],
      ['OPTIONS', '/api/snapshot'],
    ] as const) {
      const refused = await statusFor(port, evil, path, method);
      t.is(refused.status, 421, `${method} ${path} with Host ${JSON.stringify(evil)}`);
      if (method !== 'HEAD') t.regex((JSON.parse(refused.body) as { error: string }).error, /does not answer requests for the host/);
      t.is(refused.cors, undefined);
    }
  }

  for (const good of [
    `localhost:${port}`,
    'localhost',
    `app.localhost:${port}`,
    `127.0.0.1:${port}`,
    `127.1.2.3:${port}`,
    `[::1]:${port}`,
    '[::1]',
    `dash.example.test:${port}`,
    'DASH.Example.Test',
  ]) {
    const answered = await statusFor(port, good);
    t.is(answered.status, 200, `Host ${good}: ${answered.body}`);
    t.truthy((JSON.parse(answered.body) as { cpu?: unknown }).cpu, good);
  }
});

test("hostwatch on 0.0.0.0 answers the machine's own names and addresses, loopback and --allowed-host names, and refuses any other Host with 421", async (t) => {
  const hostwatch = await startHostwatch(t, ['-H', '0.0.0.0', '--allowed-host', 'dash.example.test']);
  const port = Number(new URL(hostwatch.url).port);
  const own = Object.values(networkInterfaces()).flatMap((addresses) => (addresses ?? []).map(({ address }) => (isIPv6(address) ? `[${address}]` : address)));
  for (const good of [hostname(), `${hostname()}:${port}`, ...own.map((address) => `${address}:${port}`), `localhost:${port}`, 'dash.example.test']) {
    const answered = await statusFor(port, good);
    t.is(answered.status, 200, `Host ${good}: ${answered.body}`);
  }
  for (const evil of ['attacker.example', `attacker.example:${port}`, `${hostname()}.attacker.example`, '']) {
    const refused = await statusFor(port, evil);
    t.is(refused.status, 421, `Host ${JSON.stringify(evil)}`);
    t.regex((JSON.parse(refused.body) as { error: string }).error, /does not answer requests for the host/);
  }
});

test('hostwatch on 0.0.0.0 with no --allowed-host still refuses a DNS-rebinding Host with 421', async (t) => {
  const hostwatch = await startHostwatch(t, ['-H', '0.0.0.0']);
  const port = Number(new URL(hostwatch.url).port);
  for (const [method, path] of [
    ['GET', '/api/snapshot'],
    ['GET', '/'],
    ['HEAD', '/api/snapshot'],
  ] as const) {
    const refused = await statusFor(port, `attacker.example:${port}`, path, method);
    t.is(refused.status, 421, `${method} ${path}`);
  }
  t.is((await statusFor(port, `127.0.0.1:${port}`)).status, 200);
});

test('an --allowed-host with a port is refused naming the option, exit 2', async (t) => {
  const result = await runToEnd(process.execPath, [
    projectPath('dist/bin/hostwatch.js'),
    '-H',
    '127.0.0.1',
    '-p',
    '0',
    '--allowed-host',
    'ok.example',
    '--allowed-host',
    'dash.example:80',
  ]);
  t.is(result.code, 2, result.stderr);
  t.regex(result.stderr, /--allowed-host must be a host name or an IP address, without a port/);
});
