// The documents' commands, run as written, so that no document can drift from the programs.
//
// Every command line of every ```sh block in README.md, CONTRIBUTING.md and docs/ has an entry in its
// document's table (test/doc-commands/<document>.ts): what it does when run here, or why it is not
// run. A command without an entry, or an entry whose command left the document, fails. Walkthroughs
// (blocks marked `<!-- doc-test: walkthrough NAME -->`) run whole, as one script, in a network
// namespace of their own, so the fixed ports a reader types are safe to use.
//
// Example outputs are checked too: a block after `<!-- readme-test: file NAME -->` is written to NAME,
// and the block after `<!-- readme-test: output of COMMAND -->` must be exactly what COMMAND prints.
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import type { DocExpectations } from '../doc-commands/expectation.js';
import { readDocuments } from '../helpers/documents.js';
import { projectPath, runToEnd, startProcess } from '../helpers/process.js';

const documents = await readDocuments();

// Each command runs in a network namespace of its own, with its own loopback: the fixed ports a reader
// types (8080, 8443) are free there whatever else runs on the machine, and nothing leaves it.
const ownLoopback = 'ip link set lo up';

/**
 * At most three commands or walkthroughs run at once: a walkthrough starts a nameserver, a CA and
 * certhub, and all of them at once on two busy cores would make their start-up, not the documents, the
 * thing under test.
 */
const slots = { free: 3, waiting: [] as (() => void)[] };

async function inSlot<T>(work: () => Promise<T>): Promise<T> {
  if (slots.free === 0) await new Promise<void>((resolve) => slots.waiting.push(resolve));
  else slots.free--;
  try {
    return await work();
  } finally {
    const next = slots.waiting.shift();
    if (next === undefined) slots.free++;
    else next();
  }
}

/** Shell that starts a command's server in the background and waits, a minute at most, until it answers. */
function startedBeside(beside: { command: string; ready: string }): string {
  return `{ ${beside.command} > beside.log 2>&1 & } && for try in $(seq 600); do curl -sf -o /dev/null ${JSON.stringify(beside.ready)} && break; sleep 0.1; done`;
}

/** A walkthrough is what a person types in a few minutes; one that takes longer has lost its way. */
const walkthroughMs = 5 * 60_000;

async function tableOf(name: string): Promise<DocExpectations | undefined> {
  try {
    const module = (await import(`../doc-commands/${name}.js`)) as { expectations: DocExpectations };
    return module.expectations;
  } catch {
    return undefined;
  }
}

/** A folder with the package's executables, as `npm link` makes them, to put first on PATH. */
async function linkedBin(t: ExecutionContext): Promise<{ dir: string; env: NodeJS.ProcessEnv }> {
  const dir = await mkdtemp(join(tmpdir(), 'outpost-docs-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const bin = join(dir, '.bin');
  await runToEnd('mkdir', [bin]);
  const manifest = JSON.parse(await readFile(projectPath('package.json'), 'utf8')) as { bin: Record<string, string> };
  for (const [name, file] of Object.entries(manifest.bin)) {
    await writeFile(join(bin, name), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(projectPath(file))} "$@"\n`);
    await chmod(join(bin, name), 0o755);
  }
  // A temp folder of its own too: outpost keeps its port claims and control socket under TMPDIR, which
  // network namespaces do not separate.
  const temp = join(dir, '.tmp');
  await runToEnd('mkdir', ['-m', '700', temp]);
  return { dir, env: { PATH: `${bin}:${process.env.PATH ?? ''}`, NO_COLOR: '1', TMPDIR: temp } };
}

// Loaded before any test is declared: ava takes no test declared after an await.
const tables = new Map(await Promise.all(documents.map(async (document) => [document.path, (await tableOf(document.table)) ?? {}] as const)));

test('README.md is there, and the documents have commands to check', (t) => {
  t.is(documents[0]?.path, 'README.md');
  t.true(documents.reduce((sum, document) => sum + document.commands.length, 0) >= 10);
});

for (const document of documents) {
  const expectations = tables.get(document.path) ?? {};

  test(`${document.path}: every command has an entry in test/doc-commands/${document.table}.ts, and every entry a command`, (t) => {
    const unknown = document.commands.filter((command) => !(command in expectations));
    t.deepEqual(unknown, [], `commands of ${document.path} this test does not know: add an entry`);
    const gone = Object.keys(expectations).filter((command) => !document.commands.includes(command));
    t.deepEqual(gone, [], `entries whose command is no longer in ${document.path}`);
  });

  for (const [command, expectation] of Object.entries(expectations)) {
    if ('notRun' in expectation || !document.commands.includes(command)) continue;
    test(`${document.path}: ${command}`, (t) =>
      inSlot(async () => {
        const { dir, env } = await linkedBin(t);
        for (const [name, text] of Object.entries(expectation.files ?? {})) await writeFile(join(dir, name), text);
        const folder = expectation.inPackage === true ? projectPath('') : dir;
        if ('exit' in expectation) {
          const beside = expectation.beside === undefined ? '' : `${startedBeside(expectation.beside)} && `;
          const script = `${ownLoopback} && cd "$0" && ${beside}${command}; code=$?; kill $(jobs -p) 2> /dev/null; exit $code`;
          const result = await runToEnd('unshare', ['--net', 'bash', '-c', script, folder], env);
          t.is(
            result.code,
            expectation.exit,
            `${result.stderr}${expectation.beside === undefined ? '' : await readFile(join(dir, 'beside.log'), 'utf8').catch(() => '')}`,
          );
          if (expectation.prints !== undefined) t.regex(result.stdout, expectation.prints);
          return;
        }
        const started = startProcess(t, 'unshare', ['--net', 'bash', '-c', `${ownLoopback} && cd "$0" && exec ${command}`, folder], env);
        await started.waitFor(expectation.starts, 60_000);
        started.child.kill('SIGTERM');
        t.is(await started.exited, 0);
      }));
  }

  for (const walkthrough of document.walkthroughs) {
    test(`${document.path}: the walkthrough "${walkthrough.name}" runs as written`, (t) =>
      inSlot(async () => {
        t.timeout(walkthroughMs + 30_000);
        const { dir, env } = await linkedBin(t);
        const script = `set -euo pipefail\n${ownLoopback}\ncd "$0"\n${walkthrough.script}`;
        // A process namespace too, so that whatever the script left running ends with it.
        const run = startProcess(t, 'unshare', ['--net', '--pid', '--fork', '--kill-child', 'bash', '-c', script, dir], env);
        const code = await Promise.race([run.exited, new Promise<string>((resolve) => setTimeout(() => resolve('still running'), walkthroughMs).unref())]);
        t.is(code, 0, `${walkthrough.name}:\n${run.stdout().slice(-3000)}\n${run.stderr().slice(-3000)}`);
      }));
  }

  if (document.examples.some((example) => 'command' in example)) {
    test(`${document.path}: example outputs are what the commands print`, async (t) => {
      const { dir, env } = await linkedBin(t);
      for (const example of document.examples) {
        if ('file' in example) {
          await writeFile(join(dir, example.file), example.text);
          continue;
        }
        const result = await runToEnd('bash', ['-c', `cd "$0" && ${example.command}`, dir], env);
        t.is(result.stdout + result.stderr, example.output, example.command);
      }
    });
  }
}

test("README's role table and outpost --help name every role", async (t) => {
  const text = await readFile(projectPath('README.md'), 'utf8');
  const help = await runToEnd(process.execPath, [projectPath('dist/bin/outpost.js'), '--help']);
  for (const role of ['cert', 'proxy', 'speedtest', 'monitor', 'send', 'recv']) {
    t.regex(text, new RegExp(`^\\| \`${role}\` \\|`, 'm'), role);
    t.regex(help.stdout, new RegExp(`\\b${role}\\b`), role);
  }
});
