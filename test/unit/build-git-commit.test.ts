// The build's commit: HEAD of the work tree, marked -dirty when a tracked file changed, none outside git.
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { gitCommitOf } from '../../src/build/git-commit.js';

const git = (dir: string, ...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim();

test('HEAD of a clean tree, -dirty after a tracked file changes, nothing outside git', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'git-commit-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  t.is(gitCommitOf(dir), undefined, 'not a git work tree');
  git(dir, 'init', '-q');
  t.is(gitCommitOf(dir), undefined, 'no commit yet');
  await writeFile(join(dir, 'file.txt'), 'one\n');
  git(dir, 'add', 'file.txt');
  git(dir, '-c', 'user.name=test', '-c', 'user.email=test@example.test', 'commit', '-q', '-m', 'one');
  const head = git(dir, 'rev-parse', 'HEAD');
  t.is(gitCommitOf(dir), head);
  await writeFile(join(dir, 'untracked.txt'), 'not part of the build\n');
  t.is(gitCommitOf(dir), head, 'an untracked file does not mark the tree');
  await writeFile(join(dir, 'file.txt'), 'two\n');
  t.is(gitCommitOf(dir), `${head}-dirty`);
});
