// The fleet example (examples/fleet/): three `outpost run` processes on loopback and a real
// Prometheus running the example's prometheus.yml (targets and paths replaced by the test's) and its
// alerting rules. Every rule must evaluate (health "ok" in /api/v1/rules), every target be up, and
// every query of the Grafana dashboard be valid PromQL that Prometheus answers.
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import type { SupervisorStatus } from '../../src/actor/actor-status.js';
import { testAdminKey } from '../helpers/certhub.js';
import { outpostBin, outpostDir, startOutpost, type RunningOutpost } from '../helpers/outpost.js';
import { projectPath, runToEnd } from '../helpers/process.js';
import { instantQuery, startPrometheus, waitForQuery, type RunningPrometheus } from '../helpers/prometheus.js';

const example = projectPath('examples/fleet');
const metricsToken = 'fleet-metrics-token-0123456789';

/** Each role's front URL, as the outpost's control socket tells. */
async function frontsByRole(outpost: RunningOutpost, socket: string): Promise<Map<string, string>> {
  const result = await runToEnd(process.execPath, [outpostBin, 'status', '--json', '--socket', socket]);
  if (result.code !== 0) throw new Error(`outpost status failed: ${result.stderr}`);
  const status = JSON.parse(result.stdout) as SupervisorStatus;
  return new Map(status.roles.flatMap((role) => role.actors.flatMap((actor) => (actor.urls ?? []).map((url) => [role.name, url] as const))));
}

async function hostOf(
  t: Parameters<typeof outpostDir>[0],
  name: string,
  roles: object,
  fronts: number,
): Promise<{ outpost: RunningOutpost; urls: Map<string, string> }> {
  const dir = join(await outpostDir(t), name);
  await mkdir(dir);
  const socket = join(dir, 'control.sock');
  const outpost = await startOutpost(t, dir, { roles, supervisor: { metrics_interval_ms: 500, control_socket: socket } }, fronts);
  return { outpost, urls: await frontsByRole(outpost, socket) };
}

interface RuleState {
  name: string;
  health: string;
  lastError?: string;
  lastEvaluation: string;
}

async function rules(prometheus: RunningPrometheus): Promise<RuleState[]> {
  const body = (await (await fetch(`${prometheus.url}/api/v1/rules`)).json()) as { data: { groups: { rules: RuleState[] }[] } };
  return body.data.groups.flatMap((group) => group.rules);
}

test('three outposts scraped by Prometheus with the example config: every target up, every rule evaluates, every dashboard query answers', async (t) => {
  const certDir = join(await outpostDir(t), 'certhub');
  await mkdir(certDir, { mode: 0o700 });
  await writeFile(join(certDir, 'config.json'), JSON.stringify({ base_domain: 'example.test', admin_key: testAdminKey, metrics_token: metricsToken }), {
    mode: 0o600,
  });
  const [a, b, c] = await Promise.all([
    hostOf(
      t,
      'a',
      {
        recv: { server: { listen: '127.0.0.1:0', loopback: true, accept_demo: true, max_entries: 1000 } },
        send: { anu: { demo: { enabled: true, values: 64, interval_seconds: 1 } }, diode: { loopback: true } },
      },
      1,
    ),
    hostOf(t, 'b', { cert: { data_dir: certDir, demo: true, bind: '127.0.0.1', port: 0 }, monitor: { host: '127.0.0.1', port: 0 } }, 2),
    hostOf(t, 'c', { speedtest: { host: '127.0.0.1', port: 0, quiet: true }, monitor: { host: '127.0.0.1', port: 0 } }, 2),
  ]);
  const certhub = new URL(b.urls.get('cert')!);
  const added = await fetch(new URL('api/admin/domains', certhub), {
    method: 'POST',
    headers: { authorization: `Bearer ${testAdminKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'app', target: '203.0.113.5' }),
  });
  t.is(added.status, 201);

  const outpostTargets = [a.urls.get('recv')!, b.urls.get('monitor')!, c.urls.get('speedtest')!, c.urls.get('monitor')!].map((url) => `'${new URL(url).host}'`);
  const dir = join(await outpostDir(t), 'prometheus');
  await mkdir(dir);
  await writeFile(join(dir, 'certhub-metrics-token'), metricsToken, { mode: 0o600 });
  await copyFile(join(example, 'outpost-rules.yml'), join(dir, 'outpost-rules.yml'));
  const config = (await readFile(join(example, 'prometheus.yml'), 'utf8'))
    .replaceAll('15s', '1s')
    .replace("['host-a.example.net:8080', 'host-b.example.net:8080', 'host-c.example.net:8080']", `[${outpostTargets.join(', ')}]`)
    .replace("['certhub.example.net:8443']", `['${certhub.host}']`)
    .replace('scheme: https', `scheme: ${certhub.protocol.slice(0, -1)}`)
    .replace('/etc/prometheus/certhub-metrics-token', join(dir, 'certhub-metrics-token'))
    .replace(/^ {4}tls_config:\n(?: {6}.*\n)+/m, '');
  const rulesChecked = await runToEnd('promtool', ['check', 'rules', join(dir, 'outpost-rules.yml')]);
  t.is(rulesChecked.code, 0, rulesChecked.stdout + rulesChecked.stderr);
  t.regex(rulesChecked.stdout, /SUCCESS: 5 rules found/);
  await writeFile(join(dir, 'prometheus.yml'), config);
  const configChecked = await runToEnd('promtool', ['check', 'config', join(dir, 'prometheus.yml')]);
  t.is(configChecked.code, 0, configChecked.stdout + configChecked.stderr);
  const prometheus = await startPrometheus(t, dir, config);

  await waitForQuery(prometheus, 'count(up == 1)', (samples) => samples[0]?.value[1] === '5', 60_000);
  await waitForQuery(prometheus, 'outpost_pool_available / outpost_pool_capacity', (samples) => samples.length === 1);
  await waitForQuery(
    prometheus,
    'outpost_certificate_expiry_timestamp_seconds{domain="app.example.test"} - time() > 7 * 86400',
    (samples) => samples.length === 1,
  );
  await waitForQuery(prometheus, 'increase(outpost_actor_restarts_total[15m])', (samples) => samples.length > 0);
  // Every rule has been evaluated at least once after the series it reads arrived, without an error.
  const deadline = Date.now() + 60_000;
  let states = await rules(prometheus);
  while (!states.every((rule) => rule.health === 'ok' && !rule.lastEvaluation.startsWith('0001')) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    states = await rules(prometheus);
  }
  t.deepEqual(states.map((rule) => rule.name).sort(), [
    'OutpostActorRestarting',
    'OutpostCertificateExpiresSoon',
    'OutpostHostCpuHigh',
    'OutpostNotReady',
    'OutpostQpoolPoolLow',
  ]);
  for (const rule of states) t.is(rule.health, 'ok', `${rule.name}: ${rule.lastError ?? ''}`);

  const dashboard = JSON.parse(await readFile(join(example, 'grafana-dashboard.json'), 'utf8')) as { panels: { title: string; targets: { expr: string }[] }[] };
  t.true(dashboard.panels.length >= 10);
  for (const panel of dashboard.panels) {
    for (const target of panel.targets) {
      // Grafana puts the rate interval in; any range does for checking the query.
      const samples = await instantQuery(prometheus, target.expr.replaceAll('$__rate_interval', '1m'));
      t.true(Array.isArray(samples), panel.title);
    }
  }
  const heaps = await instantQuery(prometheus, 'sum by (instance) (outpost_thread_heap_used_bytes)');
  t.is(heaps.length, 5);
});
