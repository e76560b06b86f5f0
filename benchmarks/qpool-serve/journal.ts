// Commits counted in a serve process's journal: each served record is one fdatasync'd commit. The
// files are opened read-only with the passphrase, as serve opens them at start.
import { pbkdf2Sync } from 'node:crypto';
import { PoolFiles } from '../../actors/qpool/pool/pool-files.js';
import { passphrase } from './settings.js';

/** The master key of each salt and iteration count met: PBKDF2 takes long enough to matter between rounds. */
const masterKeys = new Map<string, Buffer>();

function masterKey(password: string, kdf: { salt: Buffer; iterations: number }): Promise<Buffer> {
  const id = `${kdf.salt.toString('hex')}/${kdf.iterations}`;
  if (!masterKeys.has(id)) masterKeys.set(id, pbkdf2Sync(password, kdf.salt, kdf.iterations, 32, 'sha256'));
  return Promise.resolve(masterKeys.get(id)!);
}

/** Served records in the journal at `hotPath`; NaN without a pool file. */
export async function servedRecords(hotPath: string | undefined): Promise<number> {
  if (hotPath === undefined) return Number.NaN;
  const { files, loaded } = await PoolFiles.load(hotPath.slice(0, -'.hot'.length), passphrase, masterKey);
  await files.close();
  return loaded.journal.filter((record) => record.kind === 'served').length;
}
