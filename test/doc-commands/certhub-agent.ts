// docs/certhub-agent.md's commands outside its walkthroughs (fetch and proxy run as scripts of their own).
import type { DocExpectations } from './expectation.js';

export const expectations: DocExpectations = {
  'certhub-agent fetch -c fetch.json -o /etc/ssl/certhub --watch --reload-cmd \'["systemctl", "reload", "nginx"]\'': {
    notRun: 'writes into /etc and reloads the system nginx; the fetch walkthrough runs --watch with a reload command',
  },
  'certhub-agent fetch -c /etc/outpost/fetch.json -o /var/lib/certhub-agent-fetch/certs --format p12 --p12-password-file /etc/outpost/p12.pass --watch': {
    notRun: 'reads its config and password from /etc and keeps running; the fetch walkthrough writes and reads a bundle.p12',
  },
  'certhub-agent fetch -c /etc/outpost/fetch.json -o /var/lib/certhub-agent-fetch/certs --own-key --key-type ecdsa-p256 --watch': {
    notRun: 'reads its config from /etc and keeps running; test/cert/integration/certhub-own-key.test.ts runs --own-key against Pebble and PowerDNS',
  },
  'certhub-agent fetch -s https://certhub-a.example.net:8443 -s https://certhub-b.example.net:8443 -t "$TOKEN" -d app.example.net -o /etc/ssl/certhub': {
    notRun:
      'asks two certhub nodes on the internet and writes into /etc; test/proxy/integration/certhub-agent-failover.test.ts runs the agent against three certhub nodes, one of them down',
  },
  'certhub-agent --help': { exit: 0, prints: /^ {2}proxy \[options\] +run a TLS reverse proxy/m },
  'certhub-agent fetch --help': { exit: 0, prints: /^ {2}3 {2}material written, but the reload command failed$/m },
  'certhub-agent proxy --help': { exit: 0, prints: /^ {2}-c, --config <file> +proxy config \(JSON\)/m },
};
