// docs/outpost.md's commands. The tutorial (walkthrough first-host) runs whole, on its fixed ports, in
// a network namespace of its own; these are the commands outside it.
import type { DocExpectations } from './expectation.js';

const monitorHost = JSON.stringify({ roles: { monitor: { host: '127.0.0.1', port: 0 } } });

export const expectations: DocExpectations = {
  'outpost demo': { starts: /press Ctrl-C to stop/ },
  'outpost run -c host.json': { starts: /^monitor +http:\/\/127\.0\.0\.1:\d+\/$/m, files: { 'host.json': monitorHost } },
  'outpost check -c host.json': { exit: 0, prints: /^host\.json: valid$/m, files: { 'host.json': monitorHost } },
  'outpost roles': { exit: 0, prints: /^cert +certificate distribution server \(certhub\)\nproxy .*\nspeedtest .*\nmonitor .*\nsend .*\nrecv .*\n$/ },
  'outpost --version': { exit: 0, prints: /^outpost \d+\.\d+\.\d+\S*( \(commit [0-9a-f]{40}(-dirty)?\))?\n$/ },
};
