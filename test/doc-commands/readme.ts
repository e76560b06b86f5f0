// README.md's commands: what each does when the documents test runs it, or why it is not run.
import type { DocExpectations } from './expectation.js';

const monitorHost = JSON.stringify({ roles: { monitor: { host: '127.0.0.1', port: 8080 } } });
const netspeedServer = 'netspeed server -p 8080 -n "Rack 7"';

export const expectations: DocExpectations = {
  'npm install && npm start': {
    notRun: 'installs the packages and builds, which the suite did before it ran; npm start is outpost demo, which test/integration/outpost-demo.test.ts runs',
  },
  'npm link': { notRun: 'links into the global prefix; this test puts the same executables on PATH itself' },
  'npm test': { notRun: 'is the whole suite this test is part of' },
  'certhub setup -d /var/lib/certhub': { notRun: 'an interactive wizard writing to /var/lib (test/cert/integration/cert-setup.test.ts drives it)' },
  'certhub run -d /var/lib/certhub': { notRun: 'needs the data directory the wizard writes; the first-run guide of docs/certhub.md runs certhub for real' },
  'certhub-agent fetch -s https://certhub.example.net:8443 -t chd_… -d app.example.net -o /etc/ssl/certhub --watch': {
    notRun: 'an example server and token; the first-run guide of docs/certhub.md fetches for real',
  },
  [netspeedServer]: { starts: /^http:\/\/127\.0\.0\.1:8080\/$/m },
  'netspeed 127.0.0.1:8080': { exit: 0, prints: /Download/i, beside: { command: netspeedServer, ready: 'http://127.0.0.1:8080/api/info' } },
  'hostwatch -H 127.0.0.1 -p 9000': { starts: /^http:\/\/127\.0\.0\.1:9000\/$/m },
  'qpool setup send': { notRun: 'an interactive wizard (test/qpool/integration/qpool-setup.test.ts drives it)' },
  'qpool setup recv': { notRun: 'an interactive wizard (test/qpool/integration/qpool-setup.test.ts drives it)' },
  'qpool sample-config': { exit: 0, prints: /"server": \{/ },
  'outpost roles': { exit: 0, prints: /^proxy +TLS reverse proxy/m },
  'outpost check -c host.json': { exit: 0, prints: /^host\.json: valid$/m, files: { 'host.json': monitorHost } },
  'outpost run -c host.json': { starts: /^monitor +http:\/\/127\.0\.0\.1:8080\/$/m, files: { 'host.json': monitorHost } },
};
