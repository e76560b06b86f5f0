// Saved results over real sockets: POST /api/results, the list, one result, its page and picture,
// the bound on their number, addresses kept only when asked, bad input, and a results file a crash
// cut short. On Node 20 the store is the JSON Lines file; where node:sqlite loads, an SQLite database.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { startNetspeedServer } from '../../helpers/netspeed.js';
import { projectPath, runToEnd } from '../../helpers/process.js';

const client = (...args: string[]) => runToEnd(process.execPath, [projectPath('dist/bin/netspeed.js'), ...args]);
// Where node:sqlite loads, the store is an SQLite database (results/open-store.ts).
const sqliteModule = 'node:sqlite';
const sqlite = await import(sqliteModule).then(
  () => true,
  () => false,
);

const figures = {
  source: 'page',
  download_bps: 94_310_000,
  upload_bps: 18_220_000,
  ping_ms: 12.4,
  jitter_ms: 1.8,
  loss_percent: 0,
  download_loaded_latency_ms: 41.2,
  upload_loaded_latency_ms: 88.5,
};

async function resultsFile(t: ExecutionContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'netspeed-results-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return join(dir, 'results');
}

const post = (url: string, body: unknown, headers: Record<string, string> = { 'Content-Type': 'application/json' }) =>
  fetch(`${url}api/results`, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });

test('a result saved is listed, read, shown on its page and in its picture, graded by the server', async (t) => {
  const file = await resultsFile(t);
  const server = await startNetspeedServer(t, ['-H', '127.0.0.1', '-p', '0', '-q', '-n', 'Lab <Link>', '--results', file]);
  t.like(await (await fetch(`${server.url}api/info`)).json(), { results: true });
  const saved = await post(server.url, figures);
  t.is(saved.status, 201);
  const answer = (await saved.json()) as { id: string; page: string; picture: string };
  t.regex(answer.id, /^[A-Za-z0-9_-]{22}$/, '128 bits, base64url');
  t.is(answer.page, `r/${answer.id}`);
  t.is(answer.picture, `r/${answer.id}.svg`);

  const one = (await (await fetch(`${server.url}api/results/${answer.id}`)).json()) as Record<string, unknown>;
  t.like(one, { ...figures, id: answer.id, server_name: 'Lab <Link>', grades: { streaming: 'good', gaming: 'fair', calls: 'good' } });
  t.false('address' in one, 'no address unless --results-keep-address');
  t.true(Math.abs(Date.parse(one.at as string) - Date.now()) < 60_000);
  const list = (await (await fetch(`${server.url}api/results`)).json()) as { results: { id: string }[] };
  t.deepEqual(
    list.results.map((result) => result.id),
    [answer.id],
  );

  const page = await fetch(`${server.url}${answer.page}`);
  t.is(page.status, 200);
  t.is(page.headers.get('content-type'), 'text/html; charset=utf-8');
  t.regex(page.headers.get('content-security-policy') ?? '', /script-src 'self'/);
  const html = await page.text();
  t.true(html.includes('94.31'), 'the download figure');
  t.true(html.includes('Lab &#60;Link&#62;'), 'the server name escaped');
  t.false(html.includes('<Link>'));
  t.true(html.includes(`<img src="${answer.id}.svg"`));
  t.regex(html, /<link rel="stylesheet" href="\.\.\/style-[A-Z0-9]{8}\.css" \/>/);
  t.true(html.includes(`<a href="${answer.id}">`), 'the history links the result');
  const stylesheet = /href="\.\.\/(style-[A-Z0-9]{8}\.css)"/.exec(html)![1]!;
  t.is((await fetch(`${server.url}${stylesheet}`)).status, 200, 'the stylesheet the page links is served');

  const picture = await fetch(`${server.url}${answer.picture}`);
  t.is(picture.status, 200);
  t.is(picture.headers.get('content-type'), 'image/svg+xml; charset=utf-8');
  const svg = await picture.text();
  t.regex(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" width="1200" height="630"/);
  t.true(svg.includes('94.31') && svg.includes('18.22') && svg.includes('12.4'));
  t.false(svg.includes('<script'));
});

test('bad input is 4xx with an error; unknown ids and a server without results are 404', async (t) => {
  const server = await startNetspeedServer(t, ['-H', '127.0.0.1', '-p', '0', '-q', '--results', await resultsFile(t)]);
  const refusals: [unknown, number][] = [
    [{ ...figures, download_bps: -1 }, 400],
    [{ ...figures, loss_percent: 101 }, 400],
    [{ ...figures, source: 'robot' }, 400],
    [{ ...figures, extra: 1 }, 400],
    [{ ...figures, ping_ms: undefined }, 400],
    ['{"source":', 400],
    [{ ...figures, padding: 'x'.repeat(5000) }, 413],
  ];
  for (const [body, status] of refusals) {
    const answer = await post(server.url, body);
    t.is(answer.status, status, JSON.stringify(body).slice(0, 60));
    t.is(typeof ((await answer.json()) as { error: unknown }).error, 'string');
  }
  const text = await post(server.url, JSON.stringify(figures), { 'Content-Type': 'text/plain' });
  t.is(text.status, 415);
  for (const path of [
    'api/results/AAAAAAAAAAAAAAAAAAAAAA',
    'api/results/nope',
    'r/AAAAAAAAAAAAAAAAAAAAAA',
    'r/AAAAAAAAAAAAAAAAAAAAAA.svg',
    'r/not-an-id.svg',
  ]) {
    const answer = await fetch(`${server.url}${path}`);
    t.is(answer.status, 404, path);
  }
  t.is((await fetch(`${server.url}api/results?limit=0`)).status, 400);
  t.is((await fetch(`${server.url}api/results?limit=101`)).status, 400);

  const plain = await startNetspeedServer(t, ['-H', '127.0.0.1', '-p', '0', '-q']);
  t.like(await (await fetch(`${plain.url}api/info`)).json(), { results: false });
  const refused = await post(plain.url, figures);
  t.is(refused.status, 404);
  t.deepEqual(await refused.json(), { error: 'this server keeps no results (start it with --results FILE)' });
  t.is((await fetch(`${plain.url}api/results`)).status, 404);
});

test('past --results-max the oldest go, on disk too; addresses only with --results-keep-address, never in an answer', async (t) => {
  const file = await resultsFile(t);
  const server = await startNetspeedServer(t, ['-H', '127.0.0.1', '-p', '0', '-q', '--results', file, '--results-max', '3', '--results-keep-address']);
  const ids: string[] = [];
  for (let index = 0; index < 5; index++) ids.push(((await (await post(server.url, { ...figures, ping_ms: index })).json()) as { id: string }).id);
  const list = (await (await fetch(`${server.url}api/results`)).json()) as { results: { id: string; address?: string }[] };
  t.deepEqual(
    list.results.map((result) => result.id),
    ids.slice(2).reverse(),
    'the newest three, newest first',
  );
  t.true(list.results.every((result) => result.address === undefined));
  t.is((await fetch(`${server.url}r/${ids[0]}`)).status, 404, 'the oldest was dropped');
  server.child.kill('SIGTERM');
  await server.exited;
  if (sqlite) return;
  const lines = (await readFile(file, 'utf8')).trim().split('\n');
  const kept = lines.map((line) => JSON.parse(line) as { id: string; address?: string });
  t.true(kept.length <= 6, 'the file holds at most twice the bound');
  t.deepEqual(
    kept.slice(-3).map((result) => result.id),
    ids.slice(2),
  );
  t.true(kept.every((result) => result.address === '127.0.0.1'));
});

test('a results file whose last line a crash cut short loses that line alone', async (t) => {
  if (sqlite) return t.pass('node:sqlite keeps the results: SQLite transactions');
  const file = await resultsFile(t);
  const whole = {
    ...figures,
    id: 'AAAAAAAAAAAAAAAAAAAAAA',
    at: '2026-01-02T03:04:05.000Z',
    server_name: 'Old',
    grades: { streaming: 'good', gaming: 'fair', calls: 'good' },
  };
  await writeFile(file, `${JSON.stringify(whole)}\n${JSON.stringify({ ...whole, id: 'BBBBBBBBBBBBBBBBBBBBBB' }).slice(0, 40)}`);
  const server = await startNetspeedServer(t, ['-H', '127.0.0.1', '-p', '0', '--results', file]);
  const list = (await (await fetch(`${server.url}api/results`)).json()) as { results: { id: string }[] };
  t.deepEqual(
    list.results.map((result) => result.id),
    [whole.id],
  );
  const saved = ((await (await post(server.url, figures)).json()) as { id: string }).id;
  const lines = (await readFile(file, 'utf8')).split('\n');
  t.deepEqual(
    lines.map((line) => (line === '' ? '' : (JSON.parse(line) as { id: string }).id)),
    [whole.id, saved, ''],
    'whole lines only: the torn one is gone, the new one follows',
  );
  t.regex(server.stderr(), /dropped 1 unreadable line/);
});

test('netspeed SERVER --save prints the page of the result; a server without results is exit 1 after the figures', async (t) => {
  const server = await startNetspeedServer(t, ['-H', '127.0.0.1', '-p', '0', '-q', '--results', await resultsFile(t)]);
  const json = await client(server.url, '--json', '--save');
  t.is(json.code, 0, json.stderr);
  const report = JSON.parse(json.stdout) as { saved: string; download_bps: number; loss_percent: number; grades: object };
  t.regex(report.saved, /^http:\/\/127\.0\.0\.1:\d+\/r\/[A-Za-z0-9_-]{22}$/);
  const stored = (await (await fetch(report.saved.replace('/r/', '/api/results/'))).json()) as { source: string; download_bps: number; grades: object };
  t.like(stored, { source: 'client', download_bps: report.download_bps, grades: report.grades });
  const normal = await client(server.url, '--save');
  t.regex(normal.stdout, /\n {2}Saved {6}http:\/\/127\.0\.0\.1:\d+\/r\/[A-Za-z0-9_-]{22}\n$/);

  const plain = await startNetspeedServer(t, ['-H', '127.0.0.1', '-p', '0', '-q']);
  const refused = await client(plain.url, '-c', '--save');
  t.is(refused.code, 1);
  t.regex(refused.stdout, /^ping \d+\.\d ms \/ down/);
  t.regex(refused.stderr, /save: http:\/\/127\.0\.0\.1:\d+\/ keeps no results/);
});
