import { createHash } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { readSecretFile } from '../../src/store/secret.js';
import { projectPath, startProcess } from '../helpers/process.js';

function isWhole(content: string): boolean {
  const newline = content.indexOf('\n');
  if (newline !== 64) return false;
  return createHash('sha256').update(content.slice(65)).digest('hex') === content.slice(0, 64);
}

test('a writer killed at random instants always leaves a whole old or new file', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'outpost-atomic-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const target = join(dir, 'state');
  const seenContents = new Set<string>();
  for (let round = 0; round < 20; round++) {
    const writer = startProcess(t, process.execPath, [projectPath('dist/test/fixtures/atomic-writer.js'), target]);
    await writer.waitFor(/first write done/);
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 60));
    writer.child.kill('SIGKILL');
    await writer.exited;
    const content = await readFile(target, 'utf8');
    t.true(isWhole(content), `round ${round}: the file holds one whole version`);
    seenContents.add(content.slice(0, 64));
    t.is((await stat(target)).mode & 0o777, 0o600);
  }
  t.true(seenContents.size > 1, 'the kills landed on different versions');
  const leftovers = (await readdir(dir)).filter((name) => name !== 'state');
  t.true(
    leftovers.every((name) => name.endsWith('.tmp')),
    'only temporary files of interrupted writes remain beside it',
  );
});

test('secret files are 0600 whatever the umask, and a readable one is refused', async (t) => {
  const dir = join(await mkdtemp(join(tmpdir(), 'outpost-secret-')), 'data');
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const writer = startProcess(t, process.execPath, [projectPath('dist/test/fixtures/secret-writer.js'), dir]);
  t.is(await writer.exited, 0);
  t.is((await stat(dir)).mode & 0o777, 0o700);
  t.is((await stat(join(dir, 'key'))).mode & 0o777, 0o600);
  t.is((await readSecretFile(join(dir, 'key'))).toString(), 'secret');
  await writeFile(join(dir, 'open'), 'x', { mode: 0o644 });
  await t.throwsAsync(readSecretFile(join(dir, 'open')), { message: /readable by other users \(mode 644\)/ });
});
