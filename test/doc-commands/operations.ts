// docs/operations.md's commands. The tutorial (walkthrough scrape) runs whole, a real Prometheus
// included, in a network namespace of its own; these are the commands outside it.
import { readFileSync } from 'node:fs';
import type { DocExpectations } from './expectation.js';
import { projectPath } from '../helpers/process.js';

const systemdOnly = 'systemd is not PID 1 where the suite runs; test/integration/ops-systemd.test.ts verifies the units';
const writesEtc = 'writes into /etc and the global npm prefix; test/integration/ops-systemd.test.ts verifies the unit it installs';

export const expectations: DocExpectations = {
  'sudo npm install -g .': { notRun: writesEtc },
  'sudo cp "$(npm root -g)/outpost/packaging/systemd/outpost.service" /etc/systemd/system/': { notRun: writesEtc },
  'sudo chmod 600 /etc/outpost/host.json': { notRun: 'changes a file in /etc' },
  'sudo systemctl enable --now outpost': { notRun: systemdOnly },
  'cd "$(npm root -g)/outpost/examples/fleet"': { notRun: 'needs the package installed globally; the next command runs on a copy of the same file' },
  'promtool check rules outpost-rules.yml': {
    exit: 0,
    prints: /SUCCESS: 5 rules found/,
    files: { 'outpost-rules.yml': readFileSync(projectPath('examples/fleet/outpost-rules.yml'), 'utf8') },
  },
  'sudo outpost check -c /etc/outpost/host.json': { notRun: "reads a host's /etc/outpost; outpost check runs in docs/outpost.md's table and walkthrough" },
  'sudo systemctl restart outpost': { notRun: systemdOnly },
  'sudo outpost status -s /run/outpost/control.sock': { notRun: "needs outpost.service running; outpost status runs in docs/outpost.md's walkthrough" },
};
