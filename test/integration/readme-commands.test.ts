// README.md's commands, run as written, so that the README cannot drift from the programs.
//
// Every command line of every ```sh block must have an entry below: what it does when run here (exits
// with a code, or starts and prints a line), or why it is not run by this test (a fixed port, the
// internet, an interactive wizard). A README command without an entry, or an entry whose command left
// the README, fails the test, so an edit to either is seen.
//
// Example outputs are checked too: a block after `<!-- readme-test: file NAME -->` is written to NAME,
// and the block after `<!-- readme-test: output of COMMAND -->` must be exactly what COMMAND prints.
//
// Commands run in a temporary folder, with the package's executables on PATH as `npm link` puts them
// there (README says to run it once).
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { projectPath, runToEnd, startProcess } from '../helpers/process.js';

type Expectation = { exit: number; prints?: RegExp } | { starts: RegExp } | { notRun: string };

/** Files a command expects in its folder, beyond those the README itself declares. */
const monitorHost = JSON.stringify({ roles: { monitor: { host: '127.0.0.1', port: 0 } } });

const fixedPort = 'binds a fixed port (8080, 8443, 9000), which a test must not';
const expectations: Record<string, Expectation & { files?: Record<string, string> }> = {
  'npm install && npm start': { notRun: 'installs the packages and builds, which the suite did before it ran; npm start is outpost demo, run below' },
  'npm link': { notRun: 'links into the global prefix; this test puts the same executables on PATH itself' },
  'npm test': { notRun: 'is the whole suite this test is part of' },
  'sudo npm install -g .': { notRun: 'installs into the system; the units it ships are checked by test/integration/ops-systemd.test.ts' },
  'sudo cp "$(npm root -g)/outpost/packaging/systemd/outpost.service" /etc/systemd/system/': { notRun: 'writes into /etc; the unit is verified by ops-systemd.test.ts' },
  'sudo systemctl enable --now outpost': { notRun: 'systemd is not PID 1 where the suite runs; ops-systemd.test.ts verifies the unit' },
  'outpost run -c host.json': { starts: /^monitor +http:\/\/127\.0\.0\.1:\d+\/$/m, files: { 'host.json': monitorHost } },
  'outpost demo': { starts: /press Ctrl-C to stop/ },
  'outpost check -c host.json': { exit: 0, prints: /^host\.json: valid$/m, files: { 'host.json': monitorHost } },
  'outpost roles': { exit: 0, prints: /^proxy +TLS reverse proxy/m },
  'certhub setup -d /var/lib/certhub': { notRun: 'an interactive wizard writing to /var/lib (test/integration/cert-setup.test.ts drives it)' },
  'certhub run -d /var/lib/certhub': { notRun: 'needs the data directory certhub setup writes' },
  'certhub run -d /tmp/try --demo -H 127.0.0.1 -p 8443': { notRun: fixedPort },
  ...Object.fromEntries(
    [
      'mkdir -p /tmp/walk && cd /tmp/walk',
      'sqlite3 pdns.sqlite3 < /usr/share/pdns-backend-sqlite3/schema/schema.sqlite3.sql',
      "cat > pdns.conf <<'CONF'",
      'pdnsutil --config-dir=/tmp/walk create-zone example.test ns1.example.test',
      'pdns_server --config-dir=/tmp/walk --daemon=no --guardian=no --write-pid=no > pdns.log 2>&1 &',
      'openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 30 -subj /CN=walkthrough-ca -keyout ca-key.pem -out ca.pem',
      'openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 30 -subj /CN=localhost -addext subjectAltName=IP:127.0.0.1,DNS:localhost -CA ca.pem -CAkey ca-key.pem -keyout pebble-key.pem -out pebble-cert.pem',
      "cat > pebble.json <<'JSON'",
      'PEBBLE_VA_NOSLEEP=1 pebble -config pebble.json -dnsserver 127.0.0.1:10053 > pebble.log 2>&1 &',
      "certhub setup -d /tmp/walk/certhub <<'ANSWERS'",
      'certhub run -d /tmp/walk/certhub > certhub.out 2> certhub.log &',
      'until curl -sf -o /dev/null http://127.0.0.1:18443/readyz; do sleep 1; done',
      'ADMIN_KEY=$(jq -r .admin_key /tmp/walk/certhub/config.json)',
      `curl -s -H "Authorization: Bearer $ADMIN_KEY" -H 'Content-Type: application/json' -d '{"name": "app", "target": "127.0.0.1"}' http://127.0.0.1:18443/api/admin/domains > app.json`,
      'curl -s --cacert ca.pem https://127.0.0.1:15000/roots/0 > pebble-root.pem',
      'until certhub-agent fetch -s http://127.0.0.1:18443 -t "$(jq -r .token app.json)" -d app.example.test -o certs --ca-bundle pebble-root.pem; do sleep 2; done',
      'dig @127.0.0.1 -p 10053 +short app.example.test A',
      'openssl x509 -in certs/app.example.test/cert.pem -noout -subject -issuer',
      'kill %1 %2 %3 && rm -rf /tmp/walk',
    ].map((command) => [command, { notRun: 'the Pebble walkthrough, on fixed ports (10053, 18081, 14000, 15000, 18443); its wizard is driven against PowerDNS by cert-setup-credentials.test.ts, its issuance by the Pebble stack tests' }]),
  ),
  'curl -H "Authorization: Bearer $TOKEN" http://127.0.0.1:8443/api/cert/app': { notRun: 'needs a running certhub and a token' },
  ...Object.fromEntries(
    [
      `curl -H "Authorization: Bearer $ADMIN_KEY" -H 'Content-Type: application/json' -d '{"name": "app", "target": "203.0.113.5"}' http://127.0.0.1:8443/api/admin/domains`,
      'curl -H "Authorization: Bearer $ADMIN_KEY" http://127.0.0.1:8443/api/admin/domains',
      `curl -H "Authorization: Bearer $ADMIN_KEY" -X PATCH -H 'Content-Type: application/json' -d '{"target": "edge.example.net"}' http://127.0.0.1:8443/api/admin/domains/app`,
      'curl -H "Authorization: Bearer $ADMIN_KEY" -X POST http://127.0.0.1:8443/api/admin/domains/app/rotate',
      'curl -H "Authorization: Bearer $ADMIN_KEY" -X POST http://127.0.0.1:8443/api/admin/domains/app/retry',
      'curl -H "Authorization: Bearer $ADMIN_KEY" -O -J http://127.0.0.1:8443/api/admin/domains/app/cert.crt',
      'curl -H "Authorization: Bearer $ADMIN_KEY" -X DELETE http://127.0.0.1:8443/api/admin/domains/app',
      'curl -N -H "Authorization: Bearer $ADMIN_KEY" http://127.0.0.1:8443/api/admin/logs',
    ].map((command) => [command, { notRun: 'needs a running certhub and its admin key' }]),
  ),
  'certhub-agent fetch -s https://certhub.example.net -t chd_… -d app.example.net -o /etc/ssl/certhub': { notRun: 'an example server and token' },
  [`certhub-agent fetch -c fetch.json -o /etc/ssl/certhub --reload-cmd '["systemctl", "reload", "nginx"]'`]: { notRun: 'an example server and token, and nginx' },
  [`certhub-agent fetch -c fetch.json -o /etc/ssl/certhub --watch --reload-cmd '["systemctl", "reload", "nginx"]'`]: { notRun: 'an example server and token, and nginx' },
  'python3 -m http.server 8080 --bind 127.0.0.1 &': { notRun: fixedPort },
  'mkdir -p /tmp/agent/app.example.test': { notRun: 'part of the proxy walkthrough, on fixed ports' },
  'openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 30 -subj /CN=app.example.test -addext subjectAltName=DNS:app.example.test -keyout /tmp/agent/app.example.test/privkey.pem -out /tmp/agent/app.example.test/fullchain.pem': { notRun: 'part of the proxy walkthrough, on fixed ports' },
  "cat > /tmp/agent/proxy.json <<'JSON'": { notRun: 'part of the proxy walkthrough, on fixed ports' },
  'chmod 600 /tmp/agent/proxy.json': { notRun: 'part of the proxy walkthrough, on fixed ports' },
  'certhub-agent proxy -c /tmp/agent/proxy.json': { notRun: fixedPort },
  'curl -k --resolve app.example.test:8443:127.0.0.1 https://app.example.test:8443/': { notRun: fixedPort },
  'curl -i --resolve app.example.test:8081:127.0.0.1 http://app.example.test:8081/x': { notRun: fixedPort },
  'netspeed server': { notRun: fixedPort },
  'netspeed server -H 127.0.0.1 -p 9000 -n "Rack 7" -d 10 -q': { notRun: fixedPort },
  'netspeed speed.example:9000': { notRun: 'an example server' },
  'netspeed speed.example': { notRun: 'an example server' },
  'netspeed client http://speed.example:9000 --json': { notRun: 'an example server' },
  'netspeed 10.0.0.5:8080 -c --timeout 30': { notRun: 'an example server' },
  hostwatch: { notRun: fixedPort },
  'hostwatch -H 127.0.0.1 -p 9000': { notRun: fixedPort },
  'hostwatch --interval 5 --no-containers': { notRun: fixedPort },
  'npx hostwatch -p 8080': { notRun: fixedPort },
  'qpool setup send': { notRun: 'an interactive wizard (test/integration/qpool-setup.test.ts drives it)' },
  'qpool setup recv': { notRun: 'an interactive wizard (test/integration/qpool-setup.test.ts drives it)' },
  'qpool sample-config': { exit: 0, prints: /"server": \{/ },
  'qpool collect -c qpool.json': { notRun: 'asks ANU, on the internet' },
  'APP_POOL_KEY=... qpool serve -c qpool.json': { notRun: 'needs the receiving machine\'s diode command' },
  'qpool stats -c qpool.json': { notRun: 'needs a running qpool serve' },
  'curl -s http://127.0.0.1:8099/api/random': { notRun: 'needs a running qpool serve' },
  'curl -sf http://127.0.0.1:8099/api/random/binary -o value.bin': { notRun: 'needs a running qpool serve' },
  ...Object.fromEntries(
    ['actor-hop', 'agent-proxy', 'cold-start', 'cert-store', 'cert-issue', 'cert-fetch', 'events', 'hostwatch', 'panel', 'netspeed', 'qpool-serve', 'qpool-collect', 'metrics-cost', 'all']
      .map((name) => [`npm run bench -- ${name}`, { notRun: 'a benchmark takes minutes' }]),
  ),
  'git worktree add /tmp/before c4443eb && (cd /tmp/before && npm ci)': { notRun: 'installs packages for a benchmark' },
  'npm run bench -- qpool-serve --before /tmp/before/dist': { notRun: 'a benchmark takes minutes' },
  'npm run soak -- qpool --minutes 10': { notRun: 'a soak takes ten minutes' },
  'MALLOC_ARENA_MAX=2 npm run soak -- qpool --minutes 10': { notRun: 'a soak takes ten minutes (the same soak with glibc held to two malloc arenas, as the shipped units run it)' },
};

interface Readme {
  commands: string[];
  /** In README order: files to write, and commands whose whole output the README shows. */
  examples: ({ file: string; text: string } | { command: string; output: string })[];
}

function readReadme(text: string): Readme {
  const readme: Readme = { commands: [], examples: [] };
  const blocks = /(?:<!-- readme-test: (.+?) -->\n)?```(\w*)\n(.*?)```/gs;
  for (const [, marker, language, body] of text.matchAll(blocks)) {
    if (language === 'sh') readme.commands.push(...commandsOf(body!));
    const file = /^file (\S+)$/.exec(marker ?? '');
    const output = /^output of (.+)$/.exec(marker ?? '');
    if (file !== null) readme.examples.push({ file: file[1]!, text: body! });
    if (output !== null) readme.examples.push({ command: output[1]!, output: body! });
  }
  return readme;
}

/** The command lines of a shell block: continuations joined, comments and here-document bodies left out. */
function commandsOf(body: string): string[] {
  const commands: string[] = [];
  let hereEnd: string | undefined;
  let pending = '';
  for (const line of body.split('\n')) {
    if (hereEnd !== undefined) {
      if (line === hereEnd) hereEnd = undefined;
      continue;
    }
    if (line.trim() === '' || line.trim().startsWith('#')) continue;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1).trim()} `;
      continue;
    }
    const command = `${pending}${line}`.replace(/\s+#\s.*$/, '').replace(/\s+/g, ' ').trim();
    pending = '';
    hereEnd = /<<'?(\w+)'?$/.exec(command)?.[1];
    commands.push(command);
  }
  return commands;
}

const readme = readReadme(await readFile(projectPath('README.md'), 'utf8'));

/** A folder with the package's executables, as `npm link` makes them, to put first on PATH. */
async function linkedBin(t: ExecutionContext): Promise<{ dir: string; env: NodeJS.ProcessEnv }> {
  const dir = await mkdtemp(join(tmpdir(), 'outpost-readme-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const bin = join(dir, '.bin');
  await runToEnd('mkdir', [bin]);
  const manifest = JSON.parse(await readFile(projectPath('package.json'), 'utf8')) as { bin: Record<string, string> };
  for (const [name, file] of Object.entries(manifest.bin)) {
    await writeFile(join(bin, name), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(projectPath(file))} "$@"\n`);
    await chmod(join(bin, name), 0o755);
  }
  return { dir, env: { PATH: `${bin}:${process.env.PATH ?? ''}`, NO_COLOR: '1' } };
}

test('every README command has an expectation here, and every expectation a README command', (t) => {
  const unknown = readme.commands.filter((command) => !(command in expectations));
  t.deepEqual(unknown, [], 'README commands this test does not know: add an entry');
  const gone = Object.keys(expectations).filter((command) => !readme.commands.includes(command));
  t.deepEqual(gone, [], 'entries whose command is no longer in README');
  t.true(Object.values(expectations).filter((expectation) => !('notRun' in expectation)).length >= 5);
});

for (const [command, expectation] of Object.entries(expectations)) {
  if ('notRun' in expectation) continue;
  test(`README: ${command}`, async (t) => {
    const { dir, env } = await linkedBin(t);
    for (const [name, text] of Object.entries(expectation.files ?? {})) await writeFile(join(dir, name), text);
    if ('exit' in expectation) {
      const result = await runToEnd('bash', ['-c', `cd "$0" && ${command}`, dir], env);
      t.is(result.code, expectation.exit, result.stderr);
      if (expectation.prints !== undefined) t.regex(result.stdout, expectation.prints);
      return;
    }
    const started = startProcess(t, 'bash', ['-c', `cd "$0" && exec ${command}`, dir], env);
    await started.waitFor(expectation.starts, 60_000);
    started.child.kill('SIGTERM');
    t.is(await started.exited, 0);
  });
}

test('README example outputs are what the commands print', async (t) => {
  const { dir, env } = await linkedBin(t);
  let checked = 0;
  for (const example of readme.examples) {
    if ('file' in example) {
      await writeFile(join(dir, example.file), example.text);
      continue;
    }
    const result = await runToEnd('bash', ['-c', `cd "$0" && ${example.command}`, dir], env);
    t.is(result.stdout + result.stderr, example.output, example.command);
    checked++;
  }
  t.true(checked >= 2);
});

test("README's role table and outpost --help name every role", async (t) => {
  const text = await readFile(projectPath('README.md'), 'utf8');
  const help = await runToEnd(process.execPath, [projectPath('dist/bin/outpost.js'), '--help']);
  for (const role of ['cert', 'proxy', 'speedtest', 'monitor', 'send', 'recv']) {
    t.regex(text, new RegExp(`^\\| \`${role}\` \\|`, 'm'), role);
    t.regex(help.stdout, new RegExp(`\\b${role}\\b`), role);
  }
  t.notRegex(text, /is on\s+its way/);
});
