// Puts checked material on disk in the layout of material-files.ts. Each file is replaced atomically
// and only when its content changed, so an unchanged certificate leaves every file (and its mtime)
// as it was and needs no reload. The key goes first and the full chain last: a reader that watches
// fullchain.pem finds the key that matches it already there.
import { chmod, mkdir, readFile } from 'node:fs/promises';
import { writeFileAtomic } from '../../store/atomic.js';
import type { CertificateMaterial } from './certificate-answer.js';
import { materialPaths } from './material-files.js';

/** The folder of a domain holds its private key: only the owner may enter it. */
const folderMode = 0o700;
const keyMode = 0o600;
/** Certificates are public; the folder's mode keeps others out anyway. */
const certificateMode = 0o644;

/** Writes the material of one domain under `dir`; true when any file changed. */
export async function writeMaterial(dir: string, material: CertificateMaterial): Promise<boolean> {
  const paths = materialPaths(dir, material.domain);
  await mkdir(dir, { recursive: true, mode: folderMode });
  await mkdir(paths.folder, { recursive: true, mode: folderMode });
  await chmod(paths.folder, folderMode);
  const files: [path: string, content: string, mode: number][] = [
    [paths.key, material.keyPem, keyMode],
    [paths.cert, material.certPem, certificateMode],
    [paths.chain, material.chainPem, certificateMode],
    [paths.fullchain, `${material.certPem}${material.chainPem}`, certificateMode],
  ];
  let changed = false;
  for (const [path, content, mode] of files) {
    if ((await currentContent(path)) === content) {
      // Same content; a key someone opened up is closed again without a rewrite.
      await chmod(path, mode);
      continue;
    }
    await writeFileAtomic(path, content, { mode });
    changed = true;
  }
  return changed;
}

async function currentContent(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
