// Puts checked material on disk in the layout of material-files.ts. Each file is replaced atomically
// and only when its content changed, so an unchanged certificate leaves every file (and its mtime)
// as it was and needs no reload. Every changed file is staged (written and synced beside its target)
// before any is renamed, so a full disk or a refusing folder leaves the old set whole; the key is
// renamed first and the full chain last: a reader that watches fullchain.pem finds the key that
// matches it already there. Every failure is a MaterialWriteError naming the path and the reason.
import { chmod, readFile, rename, rm } from 'node:fs/promises';
import { makeDirectories } from '../../../src/store/directories.js';
import { stageFile, syncDirectory } from '../../../src/store/atomic.js';
import type { CertificateMaterial } from './certificate-answer.js';
import { materialPaths } from './material-files.js';
import type { Pkcs12Settings } from '../../../src/crypto/pkcs12.js';
import { OutpostError } from '../../../src/errors.js';

/** The folder of a domain holds its private key: only the owner may enter it. */
const folderMode = 0o700;
const keyMode = 0o600;
/** Certificates are public; the folder's mode keeps others out anyway. */
const certificateMode = 0o644;

/** The material could not be put on disk; the message names the path and the system's reason. */
export class MaterialWriteError extends OutpostError {
  override readonly name: string = 'MaterialWriteError';
  constructor(
    readonly path: string,
    cause: unknown,
  ) {
    super('ERR_UNAVAILABLE', `cannot write ${path}: ${reasonOf(cause)}`, { cause });
  }
}

export interface WriteOptions {
  /** Also write `combined.pem` (full chain then key, 0600), for servers that take both in one file (HAProxy). */
  combinedPem?: boolean;
  /** Write the PEM files (cert, chain, fullchain, privkey); true unless false. */
  pem?: boolean;
  /** Also write `bundle.p12` (0600), encrypted with this password and in this form. */
  p12?: Pkcs12Settings;
}

/** A file of the set: its content, or how to make it and tell whether the file on disk already holds it. */
type PlannedFile = { path: string; mode: number } & ({ content: string } | { make: () => Promise<Buffer>; holds: (current: Buffer) => Promise<boolean> });

/** Writes the material of one domain under `dir`; true when any file changed. */
export async function writeMaterial(dir: string, material: CertificateMaterial, options: WriteOptions = {}): Promise<boolean> {
  const paths = materialPaths(dir, material.domain);
  await step(paths.folder, async () => {
    await makeDirectories(paths.folder, folderMode);
    await chmod(paths.folder, folderMode);
  });
  const files = await plannedFiles(paths, material, options);
  const staged: { path: string; temporary: string }[] = [];
  try {
    for (const file of files) {
      const { path, mode } = file;
      const current = await step(path, () => currentContent(path));
      const same = 'content' in file ? current?.toString('utf8') === file.content : current !== undefined && (await file.holds(current));
      if (same) {
        // Same content; a key someone opened up is closed again without a rewrite.
        await step(path, () => chmod(path, mode));
        continue;
      }
      const content = 'content' in file ? file.content : await step(path, file.make);
      staged.push({ path, temporary: await step(path, () => stageFile(path, content, { mode })) });
    }
  } catch (error) {
    await Promise.all(staged.map(({ temporary }) => rm(temporary, { force: true })));
    throw error;
  }
  if (staged.length === 0) return false;
  for (const [index, { path, temporary }] of staged.entries()) {
    try {
      await rename(temporary, path);
    } catch (error) {
      await Promise.all(staged.slice(index).map((left) => rm(left.temporary, { force: true })));
      throw new MaterialWriteError(path, error);
    }
  }
  await step(paths.folder, () => syncDirectory(paths.folder));
  return true;
}

/** The files of the set in the order they are renamed: the key first, the full chain last. */
async function plannedFiles(paths: ReturnType<typeof materialPaths>, material: CertificateMaterial, options: WriteOptions): Promise<PlannedFile[]> {
  const { p12 } = options;
  // pkijs is loaded only by a fetch that writes PKCS#12.
  const pkcs12 = p12 === undefined ? undefined : await import('../../../src/crypto/pkcs12.js');
  const bundle: PlannedFile[] =
    pkcs12 === undefined || p12 === undefined
      ? []
      : [{ path: paths.p12, mode: keyMode, make: () => pkcs12.pkcs12Of(material, p12), holds: (current) => pkcs12.pkcs12Holds(current, material, p12) }];
  if (options.pem === false) return bundle;
  return [
    { path: paths.key, content: material.keyPem, mode: keyMode },
    ...bundle,
    ...(options.combinedPem === true ? [{ path: paths.combined, content: `${material.certPem}${material.chainPem}${material.keyPem}`, mode: keyMode }] : []),
    { path: paths.cert, content: material.certPem, mode: certificateMode },
    { path: paths.chain, content: material.chainPem, mode: certificateMode },
    { path: paths.fullchain, content: `${material.certPem}${material.chainPem}`, mode: certificateMode },
  ];
}

/** Runs one file system step for `path`; its failure becomes a MaterialWriteError naming `path`. */
async function step<T>(path: string, action: () => Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (error) {
    throw error instanceof MaterialWriteError ? error : new MaterialWriteError(path, error);
  }
}

async function currentContent(path: string): Promise<Buffer | undefined> {
  try {
    return await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** `ENOENT (no such file or directory)` rather than Node's message, which repeats the path. */
function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as NodeJS.ErrnoException).code;
  const described = /^[A-Z]+: ([^,]+)/.exec(error.message)?.[1];
  if (code !== undefined && described !== undefined) return `${described} (${code})`;
  return error.message;
}
