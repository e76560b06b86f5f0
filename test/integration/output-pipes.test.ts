// Output through pipes: a server outlives the readers of its stdout and stderr, and a command that
// prints and exits hands over all of its output first.
import { spawn } from 'node:child_process';
import { open, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { projectPath, runToEnd, startProcess } from '../helpers/process.js';
import { tempDir } from '../helpers/qpool.js';

const executables = ['outpost', 'certhub', 'certhub-agent', 'netspeed', 'hostwatch', 'qpool'] as const;

for (const name of executables) {
  test(`${name} --license through a pipe is the whole text it writes to a file`, async (t) => {
    const dir = await tempDir(t, 'outpost-license-');
    const path = join(dir, 'license.txt');
    const file = await open(path, 'w');
    try {
      const code = await new Promise<number | null>((resolve, reject) => {
        const child = spawn(process.execPath, [projectPath(`dist/bin/${name}.js`), '--license'], { stdio: ['ignore', file.fd, 'inherit'] });
        child.on('error', reject);
        child.on('exit', resolve);
      });
      t.is(code, 0);
    } finally {
      await file.close();
    }
    const written = await readFile(path, 'utf8');
    // More than a Linux pipe holds (64 KiB), or the test could not tell a cut text from the whole.
    t.true(Buffer.byteLength(written) > 64 * 1024, `${Buffer.byteLength(written)} bytes`);
    // A pipe made by the shell: child_process's own 'pipe' is a socket pair, which buffers far more.
    const piped = await runToEnd('bash', ['-o', 'pipefail', '-c', '"$0" "$1" --license | cat', process.execPath, projectPath(`dist/bin/${name}.js`)]);
    t.is(piped.code, 0);
    t.is(piped.stdout.length, written.length);
    t.true(piped.stdout === written);
  });
}

test('a server whose stdout and stderr readers went away goes on serving and logging to its file, and stops with 0', async (t) => {
  const dir = await tempDir(t, 'outpost-pipes-');
  const logFile = join(dir, 'host.log');
  const config = join(dir, 'host.json');
  // Requests are logged at debug: at info, one client run would write some 45 lines.
  await writeFile(config, JSON.stringify({ roles: { speedtest: { host: '127.0.0.1', port: 0, threads: 2 } }, log: { file: logFile, level: 'debug' } }));
  const host = startProcess(t, process.execPath, [projectPath('dist/bin/outpost.js'), 'run', '-c', config]);
  const [, url] = await host.waitFor(/^speedtest +(http:\/\/127\.0\.0\.1:\d+\/)$/m);
  host.child.stdout!.destroy();
  host.child.stderr!.destroy();
  // Each request is logged: to stderr, whose pipe is now closed, and to the file.
  for (const attempt of [1, 2, 3]) {
    const response = await fetch(`${url}api/info?attempt=${attempt}`);
    t.is(response.status, 200);
    await response.arrayBuffer();
    await waitForFile(logFile, (text) => (text.match(/GET \/api\/info 200/g) ?? []).length >= attempt);
  }
  host.child.kill('SIGTERM');
  t.is(await host.exited, 0);
  t.regex(await readFile(logFile, 'utf8'), /"msg":"stopped"/);
});

async function waitForFile(path: string, accept: (text: string) => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const text = await readFile(path, 'utf8').catch(() => '');
    if (accept(text)) return;
    if (Date.now() > deadline) throw new Error(`${path} never matched; it holds:\n${text}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
