// The client against a server that has the specification's four endpoints and nothing more, written
// here with node:http: /api/info naming another program, pings (some never answered), downloads sent
// in chunks without a length, and uploads answered with size, duration and timestamp but no `landed`.
import { createServer, type Server } from 'node:http';
import test, { type ExecutionContext } from 'ava';
import { projectPath, runToEnd } from '../../helpers/process.js';

const client = (...args: string[]) => runToEnd(process.execPath, [projectPath('dist/bin/netspeed.js'), ...args]);

interface SpecServerOptions {
  /** Answers /api/info with this instead of the specification's fields. */
  info?: unknown;
  /** Leaves these pings (1 is the first the server gets) without an answer. */
  dropPings?: readonly number[];
}

async function specServer(t: ExecutionContext, options: SpecServerOptions = {}): Promise<{ url: string }> {
  const chunk = Buffer.alloc(64 * 1024, 0x5a);
  let pings = 0;
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://spec.test');
    response.setHeader('Access-Control-Allow-Origin', '*');
    const json = (value: unknown) => {
      response.setHeader('Content-Type', 'application/json');
      response.end(JSON.stringify(value));
    };
    switch (url.pathname) {
      case '/api/info':
        return json(options.info ?? { version: '2.4.1', server: 'speedbox', name: 'Spec Box', test_duration: 8 });
      case '/api/ping':
        pings++;
        if (options.dropPings?.includes(pings) === true) return;
        return json({ timestamp: Date.now() / 1000 });
      case '/api/download': {
        let left = Number(url.searchParams.get('size') ?? 100_000_000);
        response.setHeader('Content-Type', 'application/octet-stream');
        // No Content-Length: node:http sends it chunked.
        const more = () => {
          while (left > 0) {
            const piece = chunk.subarray(0, Math.min(chunk.length, left));
            left -= piece.length;
            if (!response.write(piece)) return void response.once('drain', more);
          }
          response.end();
        };
        return more();
      }
      case '/api/upload': {
        const started = Date.now();
        let size = 0;
        request.on('data', (data: Buffer) => (size += data.length));
        request.on('end', () => json({ size, duration: (Date.now() - started) / 1000, timestamp: Date.now() / 1000 }));
        return;
      }
      default:
        response.statusCode = 404;
        response.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    server.closeAllConnections();
    server.close();
  });
  const address = server.address();
  return { url: `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}` };
}

test('a server of the specification alone is measured, its own name and program shown', async (t) => {
  const server = await specServer(t);
  const json = await client(server.url, '--json');
  t.is(json.code, 0, json.stderr);
  const report = JSON.parse(json.stdout) as Record<string, number>;
  t.is(report.download_bytes, 25_000_000);
  t.is(report.upload_bytes, 10_000_000);
  t.true(report.download_bps! > 1e6, `download ${report.download_bps}`);
  t.true(report.upload_bps! > 1e6, `upload ${report.upload_bps}`);
  t.is(report.loss_percent, 0);
  const normal = await client(server.url);
  t.is(normal.code, 0, normal.stderr);
  t.regex(normal.stdout, /^netspeed → http:\/\/127\.0\.0\.1:\d+ \(Spec Box, speedbox 2\.4\.1\)\n/);
});

test('pings a server leaves unanswered for a second are lost, and the grades read the loss', async (t) => {
  // The server's first ping is the client's warm-up, its 2nd to 11th the ten measured.
  const server = await specServer(t, { dropPings: [4, 8] });
  const json = await client(server.url, '--json');
  t.is(json.code, 0, json.stderr);
  const report = JSON.parse(json.stdout) as { loss_percent: number; grades: Record<string, string> };
  t.is(report.loss_percent, 20);
  t.is(report.grades.gaming, 'poor', 'loss past 2 % is poor for gaming');
  const again = await specServer(t, { dropPings: [4, 8] });
  const normal = await client(again.url);
  t.regex(normal.stdout, /\n {2}Loss +20\.0 % {3}2 of 10 pings unanswered within 1 s\n/);
  t.regex(normal.stdout, /\n {2}Good for {3}streaming \w+ · gaming poor · calls \w+\n/);
});

test('a server whose /api/info names no program and version is not a netspeed server', async (t) => {
  for (const info of [{ name: 'no program' }, { server: 'speedbox' }, ['a list'], 'text']) {
    const server = await specServer(t, { info });
    const result = await client(server.url, '-c');
    t.is(result.code, 1, JSON.stringify(info));
    t.regex(result.stderr, /is not a netspeed server/);
    t.is(result.stdout, '');
  }
});
