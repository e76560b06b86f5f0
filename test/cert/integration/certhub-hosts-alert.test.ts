// The shipped alert on stale hosts (examples/fleet/certhub-hosts-rules.yml), checked by promtool:
// its syntax, and with `promtool test rules` that it fires once a domain has had a stale host for
// 15 minutes, not before, and never while every host is current.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { projectPath, runToEnd } from '../../helpers/process.js';
import { tempDir } from '../../helpers/qpool.js';

const rules = projectPath('examples/fleet/certhub-hosts-rules.yml');
const series = (state: string) => `certhub_hosts{domain="app.example.test",state="${state}",instance="certhub:8443",thread="cert/http-front",role="cert"}`;

test('CerthubHostsStale fires after a stale host has been counted for 15 minutes, with the domain in its words', async (t) => {
  const checked = await runToEnd('promtool', ['check', 'rules', rules]);
  t.is(checked.code, 0, checked.stdout + checked.stderr);
  t.regex(checked.stdout, /SUCCESS: 1 rules found/);
  const dir = await tempDir(t, 'hosts-alert-');
  const labels = { severity: 'warning', domain: 'app.example.test', state: 'stale', instance: 'certhub:8443', thread: 'cert/http-front', role: 'cert' };
  const unitTest = {
    rule_files: [rules],
    evaluation_interval: '1m',
    tests: [
      {
        interval: '1m',
        input_series: [
          // Stale from the second minute on; the other host stays current.
          { series: series('stale'), values: '0 0 1x40' },
          { series: series('current'), values: '1x42' },
        ],
        alert_rule_test: [
          { eval_time: '1m', alertname: 'CerthubHostsStale', exp_alerts: [] },
          { eval_time: '12m', alertname: 'CerthubHostsStale', exp_alerts: [] },
          {
            eval_time: '20m',
            alertname: 'CerthubHostsStale',
            exp_alerts: [
              {
                exp_labels: labels,
                exp_annotations: {
                  summary: 'Hosts of app.example.test serve a stale certificate',
                  description:
                    '1 host(s) reporting to certhub on certhub:8443 serve an older certificate than the newest of app.example.test, failed their reload, or missed their next check; the Hosts of the domain in the panel say which and why.',
                },
              },
            ],
          },
        ],
      },
    ],
  };
  // JSON is YAML: promtool reads it as written.
  const file = join(dir, 'hosts-alert.test.yml');
  await writeFile(file, JSON.stringify(unitTest, null, 2));
  const tested = await runToEnd('promtool', ['test', 'rules', file]);
  t.is(tested.code, 0, tested.stdout + tested.stderr);
  t.regex(tested.stdout, /SUCCESS/);
});
