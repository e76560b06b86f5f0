// certhub run on Pebble + PowerDNS: what each target makes in DNS (AAAA, CNAME), a target edited from
// an address to a host name and back with only the current record left each time, a removal that
// leaves nothing of the domain in DNS and kills its token at once, a rotation that does the same to
// the old token. One PowerDNS and Pebble for the file; each test runs its own certhub on them with
// its own names, one after the other: PowerDNS's sqlite3 backend refuses writes from two processes at
// once ("database is locked"), and certhub is the one writer of its zone only within one process.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { startCertStack, stopCertStack, type CertStack } from '../../helpers/cert-stack.js';
import { certhubDataDir, startCerthub, type RunningCerthub } from '../../helpers/certhub.js';
import { addDomain, fetchCertificate, powerdnsSection, recordsOf, settled, stackSections, waitForDomain } from '../../helpers/certhub-domains.js';
import { eventually } from '../../helpers/fixture-host.js';
import type { RRset } from '../../../benchmarks/third-party/powerdns.js';

/** Bounds a hang of one issuance on a loaded machine; certhub-acme.test.ts issues in seconds. */
const issueDeadlineMs = 90_000;

let stack: CertStack | undefined;
test.before(async () => {
  stack = await startCertStack();
});
test.after.always(async () => {
  if (stack !== undefined) await stopCertStack(stack);
});

async function certhubOnStack(t: ExecutionContext): Promise<{ server: RunningCerthub; stack: CertStack }> {
  if (stack === undefined) throw new Error('the stack did not start');
  const dataDir = await certhubDataDir(t, { dns: powerdnsSection(stack.powerdns), ...stackSections(stack) });
  return { server: await startCerthub(t, dataDir, []), stack };
}

/** Adds `label` and waits until it is issued; fails the test with the domain's error otherwise. */
async function issued(t: ExecutionContext, server: RunningCerthub, label: string, target: string) {
  const added = await addDomain(server, label, target);
  const domain = await waitForDomain(server, label, settled, issueDeadlineMs);
  if (domain.status !== 'issued') throw new Error(`${label} did not reach issued: ${JSON.stringify(domain)}`);
  t.is(domain.token, added.token);
  return domain;
}

const rrset = (name: string, type: string, ...contents: string[]): RRset => ({ name, type, contents });

test.serial('IPv6 and host name targets: AAAA and CNAME answered by PowerDNS, both issued', async (t) => {
  const { server, stack } = await certhubOnStack(t);
  const { powerdns } = stack;
  const [v6, alias] = await Promise.all([issued(t, server, 'v6', '2001:DB8:0:0::5'), issued(t, server, 'alias', 'Edge.Example.NET.')]);
  t.like(v6, { name: 'v6.example.test', record_type: 'AAAA', target: '2001:db8::5' });
  t.like(alias, { name: 'alias.example.test', record_type: 'CNAME', target: 'edge.example.net' });
  t.deepEqual(await powerdns.dig('v6.example.test', 'AAAA'), ['2001:db8::5']);
  t.deepEqual(await powerdns.dig('alias.example.test', 'CNAME'), ['edge.example.net.']);
  // Only the address record of each is left: the challenge TXT records are gone.
  t.deepEqual(await recordsOf(powerdns, 'v6.example.test'), [rrset('v6.example.test', 'AAAA', '2001:db8::5')]);
  t.deepEqual(await recordsOf(powerdns, 'alias.example.test'), [rrset('alias.example.test', 'CNAME', 'edge.example.net.')]);
});

test.serial('edit IP -> host name -> IPv6 -> IP: only the current record type is left each time, token and certificate kept', async (t) => {
  const { server, stack } = await certhubOnStack(t);
  const name = 'edit.example.test';
  const before = await issued(t, server, 'edit', '203.0.113.7');
  const certificate = await (await fetchCertificate(server, 'edit', before.token)).json();
  const steps: [string, RRset][] = [
    ['host.example.net', rrset(name, 'CNAME', 'host.example.net.')],
    ['2001:db8::7', rrset(name, 'AAAA', '2001:db8::7')],
    ['203.0.113.8', rrset(name, 'A', '203.0.113.8')],
  ];
  for (const [target, expected] of steps) {
    const response = await server.admin('api/admin/domains/edit', { method: 'PATCH', body: { target } });
    t.is(response.status, 200, target);
    t.like(await response.json(), { target, record_type: expected.type, status: 'issued', token: before.token });
    let seen: RRset[] = [];
    const changed = await eventually(
      async () => {
        seen = await recordsOf(stack.powerdns, name);
        return JSON.stringify(seen) === JSON.stringify([expected]);
      },
      30_000,
      100,
    );
    t.true(changed, `after the edit to ${target}, PowerDNS holds ${JSON.stringify(seen)}`);
  }
  t.deepEqual(await stack.powerdns.dig(name, 'A'), ['203.0.113.8']);
  // A new target needs no new certificate: the same material is served.
  t.deepEqual(await (await fetchCertificate(server, 'edit', before.token)).json(), certificate);
});

test.serial('remove: the token is dead at once, no record of the domain is left (A, AAAA, CNAME, TXT), nor its file', async (t) => {
  const { server, stack } = await certhubOnStack(t);
  const name = 'gone.example.test';
  const domain = await issued(t, server, 'gone', '203.0.113.9');
  t.is((await fetchCertificate(server, name, domain.token)).status, 200);
  t.deepEqual(await recordsOf(stack.powerdns, name), [rrset(name, 'A', '203.0.113.9')]);

  t.is((await server.admin(`api/admin/domains/${name}`, { method: 'DELETE' })).status, 204);
  // The next request after the answer, without waiting: the token is dead.
  const refused = await fetchCertificate(server, name, domain.token);
  t.is(refused.status, 401);
  t.is(typeof ((await refused.json()) as { error?: unknown }).error, 'string');
  t.is((await server.admin(`api/admin/domains/${name}`)).status, 404);
  t.false(existsSync(join(server.dataDir, 'domains', `${name}.json`)));
  let left: RRset[] = [];
  t.true(await eventually(async () => (left = await recordsOf(stack.powerdns, name)).length === 0, 30_000, 100), `records left: ${JSON.stringify(left)}`);
  t.deepEqual(await stack.powerdns.dig(name, 'A'), []);
});

test.serial('rotate: the old token is dead at once, the new one fetches the same certificate', async (t) => {
  const { server } = await certhubOnStack(t);
  const domain = await issued(t, server, 'spin', '203.0.113.10');
  const before = await fetchCertificate(server, 'spin', domain.token);
  t.is(before.status, 200);
  const material = await before.json();

  const response = await server.admin('api/admin/domains/spin/rotate', { method: 'POST' });
  t.is(response.status, 200);
  const rotated = (await response.json()) as { token: string; status: string };
  t.not(rotated.token, domain.token);
  t.is(rotated.status, 'issued');
  t.is((await fetchCertificate(server, 'spin', domain.token)).status, 401);
  const after = await fetchCertificate(server, 'spin', rotated.token);
  t.is(after.status, 200);
  t.deepEqual(await after.json(), material);
});
