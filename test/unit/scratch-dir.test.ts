import { lstat, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { privateScratchDir } from '../../src/store/scratch-dir.js';

async function parentDir(t: { teardown(fn: () => Promise<void>): void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'scratch-dir-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

test('the scratch folder is made with mode 0700; one found with a wider mode is set to 0700', async (t) => {
  const fresh = await parentDir(t);
  t.is(privateScratchDir(fresh), join(fresh, '.scratch'));
  t.is((await lstat(join(fresh, '.scratch'))).mode & 0o777, 0o700);
  const wide = await parentDir(t);
  await mkdir(join(wide, '.scratch'), { mode: 0o755 });
  privateScratchDir(wide);
  t.is((await lstat(join(wide, '.scratch'))).mode & 0o777, 0o700);
});

test('a file or a symbolic link where the scratch folder goes is refused', async (t) => {
  const withFile = await parentDir(t);
  await writeFile(join(withFile, '.scratch'), '');
  t.throws(() => privateScratchDir(withFile), { message: /\.scratch is not a folder/ });
  const withLink = await parentDir(t);
  await symlink(tmpdir(), join(withLink, '.scratch'));
  t.throws(() => privateScratchDir(withLink), { message: /\.scratch is not a folder/ });
});
