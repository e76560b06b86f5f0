// docs/certhub.md's commands outside its walkthroughs (first-run, demo, api and lifecycle run as scripts of their own).
import type { DocExpectations } from './expectation.js';

export const expectations: DocExpectations = {
  'sudo apt-get install pebble pdns-server pdns-backend-sqlite3 sqlite3 nginx jq curl dnsutils openssl': {
    notRun: 'installs system packages as root; test/system-deps.sh installs them for the suite',
  },
  'certhub setup -d /var/lib/certhub': {
    notRun: 'an interactive wizard writing to /var/lib (test/cert/integration/cert-setup.test.ts drives it; the first-run walkthrough answers it)',
  },
  'certhub --help': { exit: 0, prints: /^ {2}setup \[options\] +interactive wizard/m },
  'certhub run --help': { exit: 0, prints: /^ {2}--demo +self-signed demo certificates/m },
  'certhub setup --help': { exit: 0, prints: /^ {2}--force +replace an existing config\.json/m },
  'certhub account rollover --help': { exit: 0, prints: /^ {2}-d, --data-dir <dir> +data directory holding config\.json and acme\//m },
  'certhub check --help': { exit: 0, prints: /^ {2}-d, --data-dir <dir> +data directory holding config\.json and acme\//m },
  'certhub revoke --help': { exit: 0, prints: /--reason <reason> +the RFC 5280 reason \(choices: "unspecified",/ },
  'sudo certhub check -d /var/lib/certhub': {
    notRun:
      'needs root, /var/lib/certhub and the configured CA and DNS provider (test/cert/integration/certhub-check.test.ts runs it against Pebble and PowerDNS)',
  },
  'sudo certhub revoke app -d /var/lib/certhub --reason keyCompromise': {
    notRun: 'needs a running certhub of /var/lib/certhub with an issued domain (test/cert/integration/certhub-lifecycle-cli.test.ts revokes one from Pebble)',
  },
  'sudo systemctl stop certhub': { notRun: 'systemd is not PID 1 where the suite runs' },
  'sudo certhub account rollover -d /var/lib/certhub': {
    notRun: 'needs a registered account in /var/lib/certhub and its CA (test/cert/integration/cert-account-rollover.test.ts runs it against Pebble)',
  },
  'sudo systemctl start certhub': { notRun: 'systemd is not PID 1 where the suite runs' },
};
