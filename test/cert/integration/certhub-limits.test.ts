// certhub's limits through a real `certhub run --demo`: config.json's max_domains bounds the adds (409
// naming the limit, a place freed by a removal taken again), CNAME loops between managed names are
// refused on add and on a target change (409, the loop spelled out), and a bad max_domains stops the
// start with exit 2 naming the option.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { certhubBin, certhubDataDir, startCerthub, type RunningCerthub } from '../../helpers/certhub.js';
import { addDomain, getDomain } from '../../helpers/certhub-domains.js';
import { runToEnd } from '../../helpers/process.js';

async function refusal(server: RunningCerthub, method: string, path: string, body: object): Promise<{ status: number; error: string }> {
  const response = await server.admin(path, { method, body });
  return { status: response.status, error: ((await response.json()) as { error: string }).error };
}

test('max_domains: the add past it is 409 naming the limit, and a removal frees a place', async (t) => {
  const server = await startCerthub(t, await certhubDataDir(t, { max_domains: 2 }));
  await addDomain(server, 'one', '203.0.113.1');
  await addDomain(server, 'two', '203.0.113.2');
  const refused = await refusal(server, 'POST', 'api/admin/domains', { name: 'three', target: '203.0.113.3' });
  t.is(refused.status, 409);
  t.regex(refused.error, /certhub manages 2 domains and max_domains \(config\.json\) allows 2/);
  const listed = (await (await server.admin('api/admin/domains')).json()) as { domains: { label: string }[] };
  t.deepEqual(listed.domains.map((domain) => domain.label).sort(), ['one', 'two']);
  t.is((await server.admin('api/admin/domains/one', { method: 'DELETE' })).status, 204);
  t.like(await addDomain(server, 'three', '203.0.113.3'), { name: 'three.example.test' });
});

test('a max_domains lowered below the domains stored: the start warns, the domains are kept, an add is refused', async (t) => {
  const dataDir = await certhubDataDir(t, { max_domains: 3 });
  const first = await startCerthub(t, dataDir);
  for (const label of ['one', 'two', 'three']) await addDomain(first, label, '203.0.113.1');
  first.child.kill('SIGTERM');
  t.is(await first.exited, 0);
  const configPath = join(dataDir, 'config.json');
  await writeFile(configPath, JSON.stringify({ ...(JSON.parse(await readFile(configPath, 'utf8')) as object), max_domains: 2 }), { mode: 0o600 });
  const second = await startCerthub(t, dataDir);
  await second.waitFor(/3 domains are more than max_domains \(2\): every add is refused until enough are removed/);
  const listed = (await (await second.admin('api/admin/domains')).json()) as { domains: unknown[] };
  t.is(listed.domains.length, 3);
  const refused = await refusal(second, 'POST', 'api/admin/domains', { name: 'four', target: '203.0.113.4' });
  t.is(refused.status, 409);
  t.regex(refused.error, /manages 3 domains and max_domains \(config\.json\) allows 2/);
});

test('CNAME loops between managed names are 409 on add and on a target change; the domains stay as they were', async (t) => {
  const server = await startCerthub(t, await certhubDataDir(t));
  // b points at a name certhub does not manage yet, until a is added pointing back.
  await addDomain(server, 'b', 'a.example.test');
  const onAdd = await refusal(server, 'POST', 'api/admin/domains', { name: 'a', target: 'b.example.test' });
  t.is(onAdd.status, 409);
  t.regex(onAdd.error, /CNAME loop between managed names: a\.example\.test -> b\.example\.test -> a\.example\.test/);
  t.is((await server.admin('api/admin/domains/a')).status, 404, 'a was not added');

  await addDomain(server, 'a', '203.0.113.5');
  await addDomain(server, 'c', 'b.example.test');
  const onChange = await refusal(server, 'PATCH', 'api/admin/domains/a', { target: 'c.example.test' });
  t.is(onChange.status, 409);
  t.regex(onChange.error, /a\.example\.test -> c\.example\.test -> b\.example\.test -> a\.example\.test/);
  t.like(await getDomain(server, 'a'), { target: '203.0.113.5', record_type: 'A' });
});

test('a max_domains that is not a positive integer stops the start: exit 2 naming the option', async (t) => {
  const dataDir = await certhubDataDir(t, { max_domains: 0 });
  const run = await runToEnd(process.execPath, [certhubBin, 'run', '-d', dataDir, '-H', '127.0.0.1', '-p', '0', '--demo']);
  t.is(run.code, 2);
  t.regex(run.stderr, /max_domains must be at least 1/);
});
