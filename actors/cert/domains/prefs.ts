// The admin panel's remembered choices (`prefs.json`, one of the store's documents): export format,
// export server URL, list sort and filter. Not precious: a missing or damaged one means the defaults.
import { formatIssues } from '../../../src/config/format.js';
import { OutpostError } from '../../../src/errors.js';
import type { Documents } from '../store/documents.js';
import { prefsSchema, type Prefs } from './prefs-schema.js';

export { exportFormats, prefsSchema, type Prefs } from './prefs-schema.js';

export const prefsFileName = 'prefs.json';

export const defaultPrefs: Prefs = prefsSchema.parse({});

export interface ReadPrefs {
  prefs: Prefs;
  /** Why the file was not used (for a log line), when it exists but is damaged. */
  problem?: string;
}

export async function readPrefs(documents: Documents): Promise<ReadPrefs> {
  const path = documents.where(prefsFileName);
  let text: string | undefined;
  try {
    text = await documents.read(prefsFileName);
    if (text === undefined) return { prefs: defaultPrefs };
  } catch (error) {
    return { prefs: defaultPrefs, problem: `${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)}); using the defaults` };
  }
  try {
    return { prefs: parsePrefs(JSON.parse(text)) };
  } catch (error) {
    return { prefs: defaultPrefs, problem: `${path} is not usable (${(error as Error).message}); using the defaults` };
  }
}

export function writePrefs(documents: Documents, prefs: Prefs): Promise<void> {
  return documents.write(prefsFileName, `${JSON.stringify(prefs, null, 2)}\n`);
}

/** Whole prefs from untrusted input; ERR_BAD_REQUEST naming each bad field. */
export function parsePrefs(input: unknown): Prefs {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new OutpostError('ERR_BAD_REQUEST', 'prefs must be a JSON object');
  const result = prefsSchema.safeParse(input);
  if (!result.success) throw new OutpostError('ERR_BAD_REQUEST', formatIssues(prefsSchema, result.error.issues).join('; '));
  return result.data;
}

/** `current` with the fields `update` gives (sort may be given in part); ERR_BAD_REQUEST on a bad field. */
export function applyPrefsUpdate(current: Prefs, update: unknown): Prefs {
  if (typeof update !== 'object' || update === null || Array.isArray(update)) throw new OutpostError('ERR_BAD_REQUEST', 'prefs must be a JSON object');
  const { sort, ...rest } = update as Record<string, unknown>;
  const sortIsObject = typeof sort === 'object' && sort !== null && !Array.isArray(sort);
  return parsePrefs({ ...current, ...rest, sort: sort === undefined ? current.sort : sortIsObject ? { ...current.sort, ...sort } : sort });
}
