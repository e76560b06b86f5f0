// docs/hostwatch.md's commands outside its walkthroughs (first-look and allowed-host run as scripts of
// their own). Each command runs in a network namespace of its own, so port 8080 is free.
import type { DocExpectations } from './expectation.js';

const listening = /^http:\/\/127\.0\.0\.1:8080\/$/m;

export const expectations: DocExpectations = {
  hostwatch: { starts: listening },
  'hostwatch --interval 5 --no-containers': { starts: listening },
  'hostwatch --show-container-args': { starts: listening },
  'outpost check -c host.json': {
    exit: 0,
    prints: /^host\.json: valid$/m,
    files: {
      'host.json': JSON.stringify({
        roles: { monitor: { host: '127.0.0.1', port: 8080, interval_seconds: 5, history_seconds: 600, allowed_hosts: ['dash.example.net'] } },
      }),
    },
  },
  'hostwatch --help': { exit: 0, prints: /^ {2}--show-container-args +show container command lines/m },
};
