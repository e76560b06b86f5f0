// docs/netspeed.md's commands outside its walkthroughs (first-test, script, results and allowed-host run as
// scripts of their own). Each command runs in a network namespace of its own, so the fixed ports are free.
import type { DocExpectations } from './expectation.js';

const exampleServer = 'an example server name or address that answers nowhere here; the walkthroughs run the client against a server on loopback';

export const expectations: DocExpectations = {
  'netspeed server': { starts: /^http:\/\/127\.0\.0\.1:8080\/$/m },
  'netspeed server -n "Office uplink" -d 10 -p 8081': { starts: /^http:\/\/127\.0\.0\.1:8081\/$/m },
  'outpost check -c host.json': {
    exit: 0,
    prints: /^host\.json: valid$/m,
    files: { 'host.json': JSON.stringify({ roles: { speedtest: { host: '0.0.0.0', port: 8080, name: 'Office uplink', duration_seconds: 10 } } }) },
  },
  'netspeed speed.example.net': { notRun: exampleServer },
  'netspeed speed.example.net:9000': { notRun: exampleServer },
  'netspeed https://speed.example.net/': { notRun: exampleServer },
  'netspeed 10.0.0.5:8080 --timeout 30': { notRun: exampleServer },
  'netspeed --help': { exit: 0, prints: /^ {2}client \[options\] <SERVER> +measure ping, download and upload/m },
  'netspeed server --help': { exit: 0, prints: /^ {2}--allowed-host <name> +also answer requests whose Host is this name/m },
  'netspeed client --help': { exit: 0, prints: /^ {2}--timeout <seconds> +give up when connecting/m },
  'netspeed serve -p 9000': { exit: 2 },
  'netspeed 127.0.0.1:99999': { exit: 2 },
};
