// What to fetch: the panel's Fetch JSON in both forms, built from the shared types, is accepted as it
// is; the flags and files that are wrong say where; plain HTTP beyond loopback is warned about.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import type { FetchManyExport, FetchOneExport } from '../../../actors/proxy/agent-exports.js';
import { plainHttpProblem, targetFromFlags, targetsFromFile } from '../../../actors/proxy/client/fetch-targets.js';
import { ConfigError } from '../../../src/errors.js';
import { proxyConfigSchema } from '../../../actors/proxy/config.js';
import { validateConfig } from '../../../src/config/load.js';

async function exportFile(t: ExecutionContext, content: unknown): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'agent-targets-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const path = join(dir, 'fetch.json');
  await writeFile(path, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return path;
}

test('the flat Fetch JSON and the domains map, as the panel types them, are read unchanged', async (t) => {
  const one: FetchOneExport = { server: 'https://certhub.example.net', domain: 'app.example.net', token: 'chd_one' };
  t.deepEqual(await targetsFromFile(await exportFile(t, one)), [
    { servers: [new URL('https://certhub.example.net')], domain: 'app.example.net', token: 'chd_one' },
  ]);
  const many: FetchManyExport = { server: 'http://127.0.0.1:8443/', domains: { 'app.example.net': { token: 'chd_a' }, 'web.example.net': { token: 'chd_b' } } };
  const targets = await targetsFromFile(await exportFile(t, many));
  t.deepEqual(
    targets.map((target) => [target.servers.map((server) => server.href).join(' '), target.domain, target.token]),
    [
      ['http://127.0.0.1:8443/', 'app.example.net', 'chd_a'],
      ['http://127.0.0.1:8443/', 'web.example.net', 'chd_b'],
    ],
  );
});

test('a wrong Fetch JSON names the file and the key', async (t) => {
  const cases: [unknown, RegExp][] = [
    ['{"server":', /fetch\.json is not valid JSON/],
    [[1], /the config must be an object/],
    [{ server: 'ftp://x', domain: 'a', token: 't' }, /fetch\.json: server must be/],
    [{ server: 'https://x', domain: 'a' }, /fetch\.json: token must be a string/],
    [{ server: 'https://x', domain: 'a', token: 't', tokn: 'u' }, /fetch\.json: tokn is not a known option/],
    [{ server: 'https://x', domains: { 'app.example.net': {} } }, /fetch\.json: domains\.app\.example\.net\.token must be a string/],
    [{ server: 'https://x', domains: {} }, /fetch\.json: domains must name at least one domain/],
    [{ server: 'https://x', domains: { '../../etc': { token: 't' } } }, /fetch\.json: domains\.\.\.\/\.\.\/etc .*empty label/],
  ];
  for (const [content, message] of cases) {
    const error = await t.throwsAsync(targetsFromFile(await exportFile(t, content)), { instanceOf: ConfigError }, JSON.stringify(content));
    t.regex(error?.message ?? '', message);
  }
  await t.throwsAsync(targetsFromFile('/nonexistent/fetch.json'), { message: /cannot read config file .*ENOENT/ });
});

test('flags: every missing one is named; a bad value is named by its flag', (t) => {
  t.deepEqual(targetFromFlags({ server: ['https://c.example.net'], token: 'chd_x', domain: 'App.Example.Net' }), {
    servers: [new URL('https://c.example.net')],
    domain: 'app.example.net',
    token: 'chd_x',
  });
  t.throws(() => targetFromFlags({ server: ['https://c.example.net'], token: 'chd_x', domain: 'app' }), {
    message: /^-d, --domain must have at least 2 labels .*: give the full name/,
  });
  const pin = `sha256:${'ab'.repeat(32)}`;
  t.deepEqual(targetFromFlags({ server: ['https://c.example.net'], token: 'chd_x', domain: 'app.example.net', pin }).pin, pin);
  t.throws(() => targetFromFlags({ server: ['https://c.example.net'], token: 'chd_x', domain: 'app.example.net', pin: 'AB:CD' }), {
    message: /^--pin must be/,
  });
  const missing = t.throws(() => targetFromFlags({ server: ['https://c.example.net'] }), { instanceOf: ConfigError });
  t.deepEqual(
    (missing as ConfigError | undefined)?.problems.map((problem) => problem.split(' is ')[0]),
    ['-t, --token', '-d, --domain'],
  );
  t.throws(() => targetFromFlags({ server: ['not a url'], token: 't', domain: 'app' }), { message: /^-s, --server must be/ });
  t.throws(() => targetFromFlags({ server: ['https://c'], token: 't', domain: 'a/b' }), { message: /^-d, --domain/ });
});

test('plain http:// is refused unless the server is on loopback or --insecure-http is given', (t) => {
  const refused = (url: string, insecure = false) => plainHttpProblem(new URL(url), '-s, --server', insecure);
  t.is(refused('https://certhub.example.net'), undefined);
  t.is(refused('http://127.0.0.1:8443'), undefined);
  t.is(refused('http://[::1]:8443'), undefined);
  t.is(refused('http://localhost:8443'), undefined);
  t.regex(
    refused('http://certhub.example.net') ?? '',
    /^-s, --server http:\/\/certhub\.example\.net is plain http:\/\/ to another machine: .* in clear; .*--insecure-http/,
  );
  t.regex(refused('http://192.0.2.7:8443') ?? '', /in clear/);
  t.is(refused('http://192.0.2.7:8443', true), undefined);
});

test('several servers: -s repeated or with commas, server as a list in a Fetch JSON and the proxy config; a bad one is named by its place', async (t) => {
  const urls = ['https://a.example.net:8443', 'https://b.example.net:8443'];
  const hrefs = (servers: readonly URL[]) => servers.map((server) => server.href);
  t.deepEqual(hrefs(targetFromFlags({ server: urls, token: 'chd_x', domain: 'app.example.net' }).servers), [
    'https://a.example.net:8443/',
    'https://b.example.net:8443/',
  ]);
  const listed = await targetsFromFile(await exportFile(t, { server: urls, domains: { 'app.example.net': { token: 'chd_a' } } }));
  t.deepEqual(hrefs(listed[0]?.servers ?? []), ['https://a.example.net:8443/', 'https://b.example.net:8443/']);
  t.throws(() => targetFromFlags({ server: ['https://a.example.net', 'ftp://b'], token: 'chd_x', domain: 'app.example.net' }), {
    message: /^-s, --server "ftp:\/\/b" must be/,
  });
  await t.throwsAsync(targetsFromFile(await exportFile(t, { server: ['https://a.example.net', 7], domain: 'app.example.net', token: 't' })), {
    message: /fetch\.json: server\[1\] must be a string/,
  });
  await t.throwsAsync(targetsFromFile(await exportFile(t, { server: 7, domain: 'app.example.net', token: 't' })), {
    message: /fetch\.json: server must be a string or an array/,
  });
  await t.throwsAsync(targetsFromFile(await exportFile(t, { server: [], domain: 'app.example.net', token: 't' })), {
    message: /fetch\.json: server must have at least 1 entr/,
  });

  const proxy = (server: unknown) => proxyConfigSchema.safeParse({ server, routes: {} });
  t.true(proxy('https://a.example.net').success);
  t.true(proxy(urls).success);
  const plain = proxy(['https://a.example.net', 'http://b.example.net']);
  t.deepEqual(
    plain.error?.issues.map((issue) => issue.path),
    [['server', 1]],
  );
  t.throws(() => validateConfig(proxyConfigSchema, { server: ['https://a.example.net', 'http://b.example.net'], routes: {} }), {
    message: /server\[1\] is plain http:\/\/ to another machine/,
  });
});
