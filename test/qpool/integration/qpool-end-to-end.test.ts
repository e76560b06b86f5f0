// The whole path: qpool collect polls the ANU double, pushes through the diode double (chopped mid-line),
// qpool serve receives, keeps an encrypted pool and serves every value once, in all four formats.
import test from 'ava';
import { get as httpGet } from 'node:http';
import { join } from 'node:path';
import { startAnuDouble } from '../fixtures/anu/anu-double.js';
import { DiodeDouble } from '../../helpers/diode-double.js';
import { runToEnd } from '../../helpers/process.js';
import { freeListen, qpoolBin, startCollect, startServe, tempDir, waitForStatus, writeConfig } from '../../helpers/qpool.js';

const formats = ['json', 'hex', 'base64', 'binary'] as const;

async function valueFrom(response: Response, format: (typeof formats)[number]): Promise<string> {
  switch (format) {
    case 'json':
      return ((await response.json()) as { value: string }).value;
    case 'hex':
      return (await response.text()).replace(/\n$/, '');
    case 'base64':
      return Buffer.from((await response.text()).replace(/\n$/, ''), 'base64').toString('hex');
    case 'binary':
      return Buffer.from(await response.arrayBuffer()).toString('hex');
  }
}

/** GET with a Host header of our choosing (fetch sets its own); the body as text. */
function getWithHost(url: string, host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const request = httpGet(url, { headers: { host } }, (response) => {
      let body = '';
      response.setEncoding('utf8').on('data', (text: string) => (body += text));
      response.on('end', () => resolve(body));
    });
    request.on('error', reject);
  });
}

test('values collected from ANU are served over HTTP in all four formats, byte-identical, none twice', async (t) => {
  const anu = await startAnuDouble();
  t.teardown(() => anu.close());
  const diode = await DiodeDouble.create(t);
  t.teardown(() => diode.cleanup());
  // The transport cuts the stream mid-line, across two runs of the receive command.
  diode.control({ chopAt: [1000, 50_000], chopExit: true });
  const dir = await tempDir(t);
  const listen = await freeListen();
  const config = await writeConfig(dir, {
    anu: {
      keyed: { enabled: true, api_key: 'test-key', url: anu.keyedUrl, length: 64, size: 10 },
      legacy: { enabled: true, url: anu.legacyUrl, length: 64, size: 64 },
    },
    diode: { send_command: diode.sendCommand() },
    server: { listen, receive_command: diode.receiveCommand('stream-recv'), pool_file: join(dir, 'pool', 'pool.bin') },
  });
  const env = { ...diode.env, QPOOL_STATE_DIR: join(dir, 'state'), APP_POOL_KEY: 'correct horse battery staple' };
  const serve = await startServe(t, config, env);
  startCollect(t, config, env);
  // keyed 64 x 20 bytes = 10 values; legacy 64 x 64 bytes = 32 values.
  await waitForStatus(serve.url, (status) => status.available === 42, 30_000);
  const produced = new Set(
    anu.responses.flatMap((response) =>
      Array.from({ length: Math.floor(response.bytes.length / 128) }, (_, index) => response.bytes.subarray(index * 128, (index + 1) * 128).toString('hex')),
    ),
  );
  t.is(produced.size, 42);

  const served: string[] = [];
  let previousAvailable = 42;
  for (let index = 0; ; index++) {
    const format = formats[index % formats.length]!;
    const response = await fetch(`${serve.url}api/random${format === 'json' ? '' : `/${format}`}`);
    if (response.status === 503) {
      t.is(served.length, 42);
      if (format === 'json') t.deepEqual(await response.json(), { error: 'pool empty' });
      else t.is(await response.text(), 'pool empty\n');
      t.regex(response.headers.get('content-type') ?? '', format === 'json' ? /^application\/json/ : /^text\/plain/);
      break;
    }
    t.is(response.status, 200);
    t.is(response.headers.get('x-quantum-bits'), '1024');
    t.is(response.headers.get('x-quantum-format'), format);
    t.is(response.headers.get('cache-control'), 'no-store');
    t.regex(response.headers.get('x-quantum-source') ?? '', /^(keyed|legacy)$/);
    t.false(Number.isNaN(Date.parse(response.headers.get('x-quantum-timestamp') ?? '')));
    const available = Number(response.headers.get('x-quantum-available'));
    t.is(available, previousAvailable - 1);
    previousAvailable = available;
    if (format === 'binary') t.is(response.headers.get('content-length'), '128');
    served.push(await valueFrom(response, format));
  }
  t.is(new Set(served).size, served.length, 'no value served twice');
  t.deepEqual([...served].sort(), [...produced].sort(), 'exactly the bytes the provider produced');
  const status = await waitForStatus(serve.url, (current) => current.served_total === 42);
  t.is(status.available, 0);
  t.is(status.oldest, undefined);

  // qpool stats asks the running server.
  const stats = await runToEnd(process.execPath, [qpoolBin, 'stats', '-c', config]);
  t.is(stats.code, 0, stats.stderr);
  t.regex(stats.stdout, /^pool +0 of 100000 values$/m);
  t.regex(stats.stdout, /^served +42 in total$/m);
  t.regex(stats.stdout, /^last ingest +\d{4}-\d\d-\d\dT[\d:.]+Z \(\d+ s ago\)$/m);
  // For scripts: the server's own status, as JSON.
  const json = await runToEnd(process.execPath, [qpoolBin, 'stats', '-c', config, '--json']);
  t.is(json.code, 0, json.stderr);
  t.like(JSON.parse(json.stdout) as object, { available: 0, capacity: 100000, served_total: 42 });
});

test('the API: version, spec, help, status headers, 404 and 405 as JSON, no CORS; stats without a server fails clearly', async (t) => {
  const diode = await DiodeDouble.create(t);
  t.teardown(() => diode.cleanup());
  const dir = await tempDir(t);
  // qpool.example stands for the name of a reverse proxy in front of this loopback server.
  const config = await writeConfig(dir, {
    server: { listen: await freeListen(), receive_command: diode.receiveCommand('auto-stream-recv'), allowed_hosts: ['qpool.example'] },
  });
  const serve = await startServe(t, config, diode.env);
  const get = (path: string, init?: RequestInit) => fetch(`${serve.url}${path}`, init);
  t.like(await (await get('api/version')).json(), { product: 'qpool', version: '0.1.0-beta.1', api_version: 1 });
  const spec = (await (await get('api/spec')).json()) as { openapi: string; paths: Record<string, unknown> };
  t.is(spec.openapi, '3.1.0');
  t.deepEqual(Object.keys(spec.paths).sort(), [
    '/',
    '/api/help',
    '/api/random',
    '/api/random/base64',
    '/api/random/binary',
    '/api/random/hex',
    '/api/spec',
    '/api/status',
    '/api/version',
    '/healthz',
    '/metrics',
    '/readyz',
  ]);
  const help = await get('api/help');
  t.regex(help.headers.get('content-type') ?? '', /^text\/plain/);
  // The curl lines name the address the request was sent to, not the default server.listen.
  const helpText = await help.text();
  t.true(helpText.includes(`  curl -s ${serve.url}api/random\n`), helpText);
  t.false(helpText.includes('8099'), helpText);
  // Behind a reverse proxy, the address the client used (its Host header).
  t.true((await getWithHost(`${serve.url}api/help`, 'qpool.example:8443')).includes('  curl -s http://qpool.example:8443/api/random\n'));
  t.true((await getWithHost(`${serve.url}api/help`, '[::1]:9000')).includes('  curl -s http://[::1]:9000/api/random\n'));
  // A Host that is no loopback name nor in allowed_hosts is refused on loopback,
  // so it is never echoed in the help.
  const oddHost = await getWithHost(`${serve.url}api/help`, 'x y<z>');
  t.regex(oddHost, /^\{"error":"this server does not answer requests for the host/, oddHost);
  const status = await get('api/status');
  t.is(status.headers.get('cache-control'), 'no-store');
  t.deepEqual(await status.json(), { available: 0, capacity: 100_000, served_total: 0 });
  const page = await get('');
  t.regex(await page.text(), /<title>[^<]*qpool/i);
  const missing = await get('api/nothing');
  t.is(missing.status, 404);
  t.truthy(((await missing.json()) as { error: string }).error);
  const wrongMethod = await get('api/random', { method: 'POST' });
  t.is(wrongMethod.status, 405);
  t.truthy(((await wrongMethod.json()) as { error: string }).error);
  const crossOrigin = await get('api/random', { headers: { origin: 'https://evil.example' } });
  t.is(crossOrigin.headers.get('access-control-allow-origin'), null, 'no web page may read values from another origin');
  await crossOrigin.arrayBuffer();

  const down = await writeConfig(dir, { server: { listen: await freeListen(), receive_command: ['diode', 'stream-recv'] } }, 'down.json');
  const stats = await runToEnd(process.execPath, [qpoolBin, 'stats', '-c', down]);
  t.is(stats.code, 1);
  t.regex(stats.stderr, /no qpool server answers at http:\/\/127\.0\.0\.1:\d+\/api\/status .*is qpool serve running/);
});
