// The commit a build is made from, for `--version` and GET /api/version: HEAD of the git work tree
// the package is built in, `-dirty` appended when tracked files differ from it (as `git describe
// --dirty` marks it), so a build from an edited tree never claims to be the commit. Undefined outside
// git (a build from a tarball) or where git is not installed.
import { execFileSync } from 'node:child_process';

function git(dir: string, args: string[]): string | undefined {
  try {
    return execFileSync('git', args, { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}

export function gitCommitOf(dir: string): string | undefined {
  const head = git(dir, ['rev-parse', '--verify', '--quiet', 'HEAD']);
  if (head === undefined || !/^[0-9a-f]{40,64}$/.test(head)) return undefined;
  const changes = git(dir, ['status', '--porcelain', '--untracked-files=no']);
  return changes === '' ? head : `${head}-dirty`;
}
