// `log.file` is checked like every option: a path that cannot be a log file (its parent is a file,
// /proc/x) is a configuration error naming `log.file` and the reason, not winston's stack trace at
// the first record or a log that silently stays empty. A folder made for it is 0700.
import { constants } from 'node:fs';
import { access, mkdir, open, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';

const folderMode = 0o700;
const fileMode = 0o600;

/** What would stop `path` from being opened as the log, each as a problem naming `log.file`; creates nothing. */
export async function checkLogFile(path: string): Promise<string[]> {
  const reason = await logFileProblem(path);
  return reason === undefined ? [] : [`log.file ${path} cannot be written: ${reason}`];
}

/** Makes the log's folder (0700) and opens the file for appending once, so that a failure is a config error. */
export async function prepareLogFile(path: string): Promise<string[]> {
  try {
    await mkdir(dirname(path), { recursive: true, mode: folderMode });
    await (await open(path, 'a', fileMode)).close();
    return [];
  } catch (error) {
    return [`log.file ${path} cannot be written: ${describeFailure(error)}`];
  }
}

async function logFileProblem(path: string): Promise<string | undefined> {
  const existing = await kindOf(path);
  if (existing === 'directory') return 'it is a directory';
  if (existing !== undefined) return attempt(async () => (await open(path, 'a')).close());
  let folder = dirname(path);
  for (;;) {
    const kind = await kindOf(folder);
    if (kind === 'directory') break;
    if (kind !== undefined) return `${folder} is not a directory`;
    if (dirname(folder) === folder) return `${folder} does not exist`;
    folder = dirname(folder);
  }
  if (folder !== dirname(path)) return attempt(() => access(folder, constants.W_OK | constants.X_OK));
  // access() says yes for /proc, where nothing can be created: try with a probe file.
  const probe = join(folder, `.outpost-check-${process.pid}`);
  return attempt(async () => {
    await (await open(probe, 'wx', fileMode)).close();
    await rm(probe);
  });
}

async function attempt(action: () => Promise<void>): Promise<string | undefined> {
  try {
    await action();
    return undefined;
  } catch (error) {
    return describeFailure(error);
  }
}

async function kindOf(path: string): Promise<'directory' | 'other' | undefined> {
  try {
    return (await stat(path)).isDirectory() ? 'directory' : 'other';
  } catch (error) {
    // ENOTDIR: a folder on the way is a file, which the walk up to it reports.
    if (['ENOENT', 'ENOTDIR'].includes((error as NodeJS.ErrnoException).code ?? '')) return undefined;
    throw error;
  }
}

const failureWords: Record<string, string> = {
  ENOTDIR: 'a folder on its path is a file',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOENT: 'this file system does not allow creating it',
  EROFS: 'read-only file system',
  EISDIR: 'it is a directory',
};

function describeFailure(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  return code === undefined ? String(error) : `${failureWords[code] ?? 'cannot open it'} (${code})`;
}
