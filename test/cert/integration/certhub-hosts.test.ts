// Hosts that report to certhub, on the real stack (PowerDNS + Pebble): three certhub-agent fetch
// --watch on one domain, one whose reload succeeds, one whose reload command fails, one stopped.
// The API shows one current host, one stale for its reload and one stale for its silence past its
// next check plus the margin; /metrics counts them; removing a host is audited; a report that is
// not of the schema, too large, or with a wrong token is refused with its JSON error.
import { stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import type { DomainDetail, ListedDomain } from '../../../actors/cert/browser.js';
import { stopCertStack, startCertStack } from '../../helpers/cert-stack.js';
import { powerdnsSection, stackSections } from '../../helpers/certhub-domains.js';
import { certhubDataDir, startCerthub, testAdminKey } from '../../helpers/certhub.js';
import { addIssuedDomain, startAgent } from '../../helpers/certhub-agent.js';
import { eventually } from '../../helpers/fixture-host.js';
import { sampleValue } from '../../helpers/metrics-text.js';
import { tempDir } from '../../helpers/qpool.js';
import { hostIdFileName } from '../../../actors/proxy/client/host-identity.js';

test('one current host, one whose reload failed, one silent past its next check: the API, /metrics and the audit log say which', async (t) => {
  const stack = await startCertStack();
  try {
    const dataDir = await certhubDataDir(t, {
      dns: powerdnsSection(stack.powerdns),
      ...stackSections(stack, [stack.powerdns.nameserver], 30),
      hosts: { stale_margin_seconds: 2, unserved_after_seconds: 3600 },
    });
    const server = await startCerthub(t, dataDir, []);
    const { name, token } = await addIssuedDomain(server, 'app', 60_000);
    const bundle = join(await tempDir(t, 'agent-ca-'), 'pebble-root.pem');
    await writeFile(bundle, await stack.pebble.root());
    const agent = async (hostName: string, interval: string, extra: string[]) => {
      const out = await tempDir(t, `agent-${hostName}-`);
      const args = ['fetch', '--watch', '--interval', interval, '-s', server.url, '-t', token, '-d', name, '-o', out, '--ca-bundle', bundle];
      return { out, running: startAgent(t, [...args, '--host-name', hostName, ...extra]) };
    };
    const current = await agent('web-current', '2', ['--reload-cmd', '["true"]']);
    const failing = await agent('web-failing', '2', ['--reload-cmd', '["sh", "-c", "echo nginx: [emerg] cannot load certificate; exit 3"]']);
    const stopped = await agent('web-stopped', '1', []);

    const detail = async () => (await (await server.admin(`api/admin/domains/app`)).json()) as DomainDetail;
    t.true(await eventually(async () => (await detail()).hosts.length === 3, 30_000), JSON.stringify(await detail()));
    stopped.running.child.kill('SIGTERM');
    await stopped.running.exited;
    // Its next check was a second away; two more seconds of margin, and it is silent.
    const judged = await eventually(async () => (await detail()).deployment.stale === 2, 20_000, 200);
    const shown = await detail();
    t.true(judged, JSON.stringify(shown));
    t.deepEqual(shown.deployment, { hosts: 3, stale: 2, state: 'stale', unserved: false });
    const host = (hostName: string) => {
      const found = shown.hosts.find((each) => each.name === hostName);
      if (found === undefined) throw new Error(`no host ${hostName} in ${JSON.stringify(shown.hosts)}`);
      return found;
    };
    t.is(host('web-current').state, 'current');
    t.deepEqual(host('web-current').problems, []);
    t.deepEqual(host('web-current').reload, { ok: true, exit_code: 0, output: [] });
    t.deepEqual(host('web-failing').problems, ['reload_failed']);
    t.deepEqual(host('web-failing').reload, { ok: false, exit_code: 3, output: ['nginx: [emerg] cannot load certificate'] });
    t.deepEqual(host('web-stopped').problems, ['silent']);
    t.is(host('web-stopped').reload, null);
    for (const each of shown.hosts) {
      t.is(each.address, '127.0.0.1');
      t.is(each.agent, 'fetch');
      t.regex(each.agent_version, /^\d+\.\d+\.\d+/);
      t.is(each.not_after, shown.expires_at ?? '');
    }
    t.is(new Set(shown.hosts.map((each) => each.sha256)).size, 1, 'all three wrote the one certificate');
    t.is(new Set(shown.hosts.map((each) => each.id)).size, 3);
    const idFile = await stat(join(current.out, hostIdFileName));
    t.is(idFile.mode & 0o777, 0o600);

    const staleList = (await (await server.admin('api/admin/domains?deployment=stale')).json()) as { domains: ListedDomain[] };
    t.deepEqual(
      staleList.domains.map((domain) => domain.name),
      [name],
    );
    // A thread pushes its figures at each interval of the metrics: the judgement shows at the next push.
    const scrape = async () => (await fetch(`${server.url}metrics`, { headers: { authorization: `Bearer ${testAdminKey}` } })).text();
    let metrics = '';
    await eventually(async () => sampleValue((metrics = await scrape()), 'certhub_hosts', { domain: name, state: 'stale' }) === 2, 30_000, 500);
    t.is(sampleValue(metrics, 'certhub_hosts', { domain: name, state: 'current' }), 1, metrics);
    t.is(sampleValue(metrics, 'certhub_hosts', { domain: name, state: 'stale' }), 2);

    const removed = await server.admin(`api/admin/domains/app/hosts/${host('web-stopped').id}`, { method: 'DELETE' });
    t.is(removed.status, 204);
    t.deepEqual((await detail()).deployment, { hosts: 2, stale: 1, state: 'stale', unserved: false });
    const again = await server.admin(`api/admin/domains/app/hosts/${host('web-stopped').id}`, { method: 'DELETE' });
    t.is(again.status, 404);
    t.regex(((await again.json()) as { error: string }).error, /has no host/);
    const audit = (await (await server.admin('api/admin/audit?action=host.remove')).json()) as { entries: { domain: string; outcome: string; note: string }[] };
    t.deepEqual(
      audit.entries.map(({ domain, outcome, note }) => ({ domain, outcome, note })),
      [
        // A refusal names the domain as it was asked for.
        { domain: 'app', outcome: 'ERR_NOT_FOUND', note: `host ${host('web-stopped').id}` },
        { domain: name, outcome: 'ok', note: `host ${host('web-stopped').id}` },
      ],
    );

    const report = (body: string, bearer = token) =>
      fetch(`${server.url}api/cert/${name}/report`, {
        method: 'POST',
        headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
        body,
      });
    const good = {
      host_id: 'abcdefghijklmnop',
      host_name: 'by-hand',
      agent: 'fetch',
      agent_version: '1.0.0',
      serving: { sha256: host('web-current').sha256, not_after: host('web-current').not_after },
      reload: null,
      next_check_at: null,
    };
    const bad = await report(JSON.stringify({ ...good, host_name: 'line\nbreak' }));
    t.is(bad.status, 400);
    t.regex(((await bad.json()) as { error: string }).error, /host_name/);
    const large = await report(JSON.stringify({ ...good, host_name: 'x'.repeat(5000) }));
    t.is(large.status, 413);
    t.truthy(((await large.json()) as { error: string }).error);
    const wrongToken = await report(JSON.stringify(good), 'chd_wrong');
    t.is(wrongToken.status, 401);
    const accepted = await report(JSON.stringify(good));
    t.is(accepted.status, 200);
    t.deepEqual(await accepted.json(), { domain: name, deployment: { hosts: 3, stale: 1, state: 'stale', unserved: false } });

    failing.running.child.kill('SIGTERM');
    current.running.child.kill('SIGTERM');
    t.is(await failing.running.exited, 0);
    t.is(await current.running.exited, 0);
    // Kept across a restart: the hosts file in the data folder.
    server.child.kill('SIGTERM');
    await server.exited;
    const restarted = await startCerthub(t, dataDir, []);
    const after = (await (await restarted.admin('api/admin/domains/app')).json()) as DomainDetail;
    t.deepEqual(after.hosts.map((each) => each.name).sort(), ['by-hand', 'web-current', 'web-failing']);
    t.is((await stat(join(dataDir, 'hosts', `${name}.json`))).mode & 0o777, 0o600);
  } finally {
    await stopCertStack(stack);
  }
});
