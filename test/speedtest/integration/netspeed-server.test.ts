// The netspeed server over real sockets: every endpoint, header, status and error.
import { request } from 'node:http';
import test from 'ava';
import { startNetspeedServer } from '../../helpers/netspeed.js';

test('info, ping and the page', async (t) => {
  const server = await startNetspeedServer(t, ['-H', '127.0.0.1', '-p', '0', '-n', 'Lab Link', '-d', '3']);
  const info = await fetch(`${server.url}api/info`);
  t.is(info.headers.get('access-control-allow-origin'), '*');
  t.deepEqual(await info.json(), {
    version: '0.1.0-beta.1',
    server: 'netspeed',
    name: 'Lab Link',
    test_duration: 3,
    max_download_bytes: 100_000_000,
    max_upload_bytes: 100_000_000,
    results: false,
  });
  const before = Date.now() / 1000;
  const ping = await fetch(`${server.url}api/ping`);
  t.is(ping.headers.get('cache-control'), 'no-store');
  t.is(ping.headers.get('access-control-allow-origin'), '*');
  const { timestamp } = (await ping.json()) as { timestamp: number };
  t.true(timestamp >= before - 1 && timestamp <= Date.now() / 1000 + 1);
  t.false(Number.isInteger(timestamp * 1000), 'the timestamp is fractional');
  const page = await fetch(server.url);
  t.is(page.status, 200);
  t.is(page.headers.get('content-type'), 'text/html; charset=utf-8');
});

test('download: exact sizes of incompressible data, never compressed, bad sizes are 400', async (t) => {
  const server = await startNetspeedServer(t, ['-H', '127.0.0.1', '-p', '0', '-q']);
  const response = await fetch(`${server.url}api/download?size=3000000`, { headers: { 'Accept-Encoding': 'gzip, br' } });
  t.is(response.status, 200);
  t.is(response.headers.get('content-type'), 'application/octet-stream');
  t.is(response.headers.get('cache-control'), 'no-store');
  t.is(response.headers.get('content-length'), '3000000');
  t.is(response.headers.get('access-control-allow-origin'), '*');
  t.not(response.headers.get('content-encoding'), 'gzip');
  const body = Buffer.from(await response.arrayBuffer());
  t.is(body.length, 3_000_000);
  const { deflateSync } = await import('node:zlib');
  t.true(deflateSync(body.subarray(0, 1_000_000)).length > 990_000, 'the data does not compress');
  const whole = await fetch(`${server.url}api/download`);
  t.is(whole.headers.get('content-length'), '100000000', 'the default is 100 MB, decimal');
  await whole.body?.cancel();
  t.is((await fetch(`${server.url}api/download?size=0`)).headers.get('content-length'), '0');
  for (const size of ['abc', '-1', '1.5', '100000001', '1e6']) {
    const bad = await fetch(`${server.url}api/download?size=${size}`);
    t.is(bad.status, 400, `size=${size}`);
    t.regex(((await bad.json()) as { error: string }).error, /size must be/);
  }
});

test('upload: counted as it arrives, size and duration reported, past the bound 413', async (t) => {
  const server = await startNetspeedServer(t, ['-H', '127.0.0.1', '-p', '0', '-q']);
  const body = new Uint8Array(5_000_000);
  const response = await fetch(`${server.url}api/upload`, { method: 'POST', body });
  t.is(response.headers.get('access-control-allow-origin'), '*');
  const result = (await response.json()) as { size: number; duration: number; timestamp: number; landed: [number, number][] };
  t.is(result.size, 5_000_000);
  t.true(result.duration > 0 && result.duration < 10);
  // When the bytes landed: in time order, growing, ending with every byte by the end of the duration.
  t.deepEqual(result.landed.at(-1)?.[1], 5_000_000);
  t.true(result.landed.every(([at, bytes], index) => index === 0 || (at >= result.landed[index - 1]![0] && bytes > result.landed[index - 1]![1])));
  t.true(result.landed.at(-1)![0] <= result.duration + 1e-5);
  t.true(Math.abs(result.timestamp - Date.now() / 1000) < 5);
  const empty = (await (await fetch(`${server.url}api/upload`, { method: 'POST' })).json()) as { size: number };
  t.is(empty.size, 0);
  // The server answers as soon as the declared length is past the bound, before any body is sent.
  const tooLarge = await declaredUpload(`${server.url}api/upload`, 100_000_001);
  t.is(tooLarge.status, 413);
  t.deepEqual(JSON.parse(tooLarge.body), { error: 'upload larger than 100000000 bytes' });
});

test('CORS preflight, unknown paths and wrong methods', async (t) => {
  const server = await startNetspeedServer(t, ['-H', '127.0.0.1', '-p', '0', '-q']);
  const preflight = await fetch(`${server.url}api/upload`, {
    method: 'OPTIONS',
    headers: { 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type' },
  });
  t.is(preflight.status, 204);
  t.is(preflight.headers.get('access-control-allow-origin'), '*');
  t.is(preflight.headers.get('access-control-allow-methods'), 'POST, OPTIONS');
  t.is((await fetch(`${server.url}api/nothing`)).status, 404);
  const wrong = await fetch(`${server.url}api/upload`);
  t.is(wrong.status, 405);
  t.is(wrong.headers.get('allow'), 'POST');
});

test('requests are logged at debug, not info, so --debug shows them; with -q only warnings and errors are', async (t) => {
  const server = await startNetspeedServer(t, ['-H', '127.0.0.1', '-p', '0', '--debug']);
  await fetch(`${server.url}api/ping`);
  await server.waitFor(/\[speedtest\/http-front#\d\] GET \/api\/ping 200/);
  t.regex(server.stderr(), / info {2}\[supervisor\] all actors ready/);
  const quiet = await startNetspeedServer(t, ['-H', '127.0.0.1', '-p', '0', '-q']);
  await fetch(`${quiet.url}api/ping`);
  await fetch(`${quiet.url}api/nothing`);
  // A stop is logged at info level too: after it, the whole log of the run is in.
  quiet.child.kill('SIGTERM');
  t.is(await quiet.exited, 0);
  t.is(quiet.stderr(), '', 'no info line: not the start, the requests or the stop');
});

/** Sends only the headers of an upload declaring `length` bytes, and reads the answer. */
function declaredUpload(url: string, length: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const upload = request(url, { method: 'POST', headers: { 'Content-Length': String(length) } }, (response) => {
      let body = '';
      response.setEncoding('utf8').on('data', (text: string) => (body += text));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    upload.on('error', reject);
    upload.flushHeaders();
  });
}
