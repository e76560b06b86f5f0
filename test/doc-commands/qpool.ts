// docs/qpool.md's commands outside its walkthroughs (one-machine and pool-file run as scripts of their
// own). The curl lines and stats run beside a `qpool serve` fed from a file, as the tutorial does.
import type { DocExpectations, Expectation } from './expectation.js';

/** Twenty distinct demo values, one JSON line each, as the diode's receive command would print them. */
const valueLines = Array.from(
  { length: 20 },
  (_, index) => `${JSON.stringify({ value: index.toString(16).padStart(2, '0').repeat(128), timestamp: '2026-01-01T00:00:00Z', source: 'demo' })}\n`,
).join('');

/** A memory-only server on the documented address, its values read from values.jsonl. */
const runningServer: Pick<Expectation, 'files' | 'beside'> = {
  files: {
    'qpool.json': JSON.stringify({ server: { listen: '127.0.0.1:8099', receive_command: ['cat', 'values.jsonl'], accept_demo: true } }),
    'values.jsonl': valueLines,
  },
  // Ready once a value can be taken: the values have arrived, not only the front.
  beside: { command: 'qpool serve -c qpool.json', ready: 'http://127.0.0.1:8099/api/random/hex' },
};

const writesEtc = 'writes into /etc as root; test/integration/ops-systemd.test.ts verifies the unit';

export const expectations: DocExpectations = {
  'qpool setup send': { notRun: 'an interactive wizard (test/qpool/integration/qpool-setup.test.ts drives it)' },
  'qpool setup recv': { notRun: 'an interactive wizard (test/qpool/integration/qpool-setup.test.ts drives it)' },
  'qpool collect -c qpool.json': { notRun: 'asks ANU, on the internet, and runs the diode tool; the one-machine walkthrough runs collect on the demo source' },
  'APP_POOL_KEY=... qpool serve -c qpool.json': {
    notRun: "the passphrase is a placeholder and the config is the receiving machine's (its diode tool); the walkthroughs run serve",
  },
  'sudo install -D -m 644 qpool.json /etc/outpost/qpool.json': { notRun: writesEtc },
  "sudo sh -c 'umask 077 && cat > /etc/outpost/qpool-pool-key'": { notRun: writesEtc },
  'sudo cp "$(npm root -g)/outpost/packaging/systemd/qpool-serve.service" /etc/systemd/system/': { notRun: writesEtc },
  'sudo systemctl enable --now qpool-serve': { notRun: 'systemd is not PID 1 where the suite runs; ops-systemd.test.ts verifies the unit' },
  'curl -s http://127.0.0.1:8099/api/random': { exit: 0, prints: /^\{"value":"[0-9a-f]{256}","timestamp":"[^"]+","source":"demo"\}$/, ...runningServer },
  'curl -sf http://127.0.0.1:8099/api/random/binary -o value.bin': { exit: 0, ...runningServer },
  'qpool stats -c qpool.json': { exit: 0, prints: /^pool +1\d of 100000 values$/m, ...runningServer },
  'qpool stats -c qpool.json --json': { exit: 0, prints: /^ {2}"available": 1\d,$/m, ...runningServer },
  'outpost check -c host.json': {
    exit: 0,
    prints: /^host\.json: valid$/m,
    files: {
      'host.json': JSON.stringify({
        roles: {
          send: { anu: { legacy: { enabled: true } }, diode: { send_command: ['diode', 'stream-send', '--channel', 'qpool', '--no-colour'] } },
          recv: { server: { listen: '127.0.0.1:8099', receive_command: ['diode', 'stream-recv', '--channel', 'qpool', '--no-colour'] } },
        },
      }),
    },
  },
  'qpool --help': { exit: 0, prints: /^ {2}sample-config +print a full example config/m },
  'qpool sample-config': { exit: 0, prints: /^ {2}"server": \{$/m },
};
