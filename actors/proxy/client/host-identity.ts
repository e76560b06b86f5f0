// Who a host is to certhub when it reports (host-report.ts): a name, os.hostname() unless
// --host-name says otherwise, and an id made once at random and kept in the agent's own folder
// (the output folder of `fetch`, the material folder of `proxy`), so that a renamed host or two
// hosts of one name stay apart, and a host reinstalled from scratch is a new one.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { readFile } from 'node:fs/promises';
import { makeDirectories } from '../../../src/store/directories.js';
import { writeSecretFile } from '../../../src/store/secret.js';

/** The file that keeps the id, mode 0600, in the agent's folder beside the domains' folders. */
export const hostIdFileName = '.certhub-agent-host-id';
const hostIdPattern = /^[A-Za-z0-9_-]{16,64}$/;

export interface HostIdentity {
  id: string;
  name: string;
}

/** The host's id, read from `dir` or made there, and its name. */
export async function hostIdentity(dir: string, nameGiven?: string): Promise<HostIdentity> {
  const path = join(dir, hostIdFileName);
  let id: string | undefined;
  try {
    id = (await readFile(path, 'utf8')).trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  if (id === undefined || !hostIdPattern.test(id)) {
    id = randomBytes(16).toString('base64url');
    await makeDirectories(dir, 0o755);
    await writeSecretFile(path, `${id}\n`);
  }
  return { id, name: nameGiven ?? hostname() };
}

/** Why a --host-name is refused, or undefined: it is shown in certhub's panel and logs. */
export function hostNameOptionProblem(name: string): string | undefined {
  // eslint-disable-next-line no-control-regex -- refusing control characters is the point
  if (name === '' || name.length > 253 || /[\u0000-\u001f\u007f]/.test(name)) return 'must be 1 to 253 printable characters';
  return undefined;
}

/**
 * The identity, made on first use: the id file is written when the first report is sent, after
 * material was, so a run that fetched nothing leaves the folder as it found it.
 */
export function lazyHostIdentity(dir: string, nameGiven?: string): () => Promise<HostIdentity> {
  let made: Promise<HostIdentity> | undefined;
  return () => {
    made ??= hostIdentity(dir, nameGiven).catch((error: unknown) => {
      made = undefined;
      throw new Error(`the host id in ${join(dir, hostIdFileName)} cannot be kept: ${error instanceof Error ? error.message : String(error)}`);
    });
    return made;
  };
}
