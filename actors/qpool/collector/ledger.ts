// The keyed API allows about 100 requests a month. Polling "once at start" would spend one on every
// restart, so the time of each keyed request is recorded before it is sent, and a start within the
// interval waits for the rest of it. The ledger holds that time only: no value is ever written to
// disk on the sending side.
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { makeDirectories } from '../../../src/store/directories.js';
import { writeSecretFile } from '../../../src/store/secret.js';

interface LedgerFile {
  keyed?: { last_request: string };
}

/**
 * Where the ledger lives: `QPOOL_STATE_DIR`, systemd's `STATE_DIRECTORY`, `XDG_STATE_HOME/qpool`,
 * else `~/.local/state/qpool`.
 */
export function ledgerPath(env: NodeJS.ProcessEnv = process.env): string {
  const dir = env.QPOOL_STATE_DIR ?? env.STATE_DIRECTORY?.split(':')[0] ?? join(env.XDG_STATE_HOME ?? join(homedir(), '.local/state'), 'qpool');
  return join(dir, 'send-ledger.json');
}

export class KeyedLedger {
  constructor(private readonly path: string) {}

  /** When the last keyed request was sent, if the ledger knows. An unreadable ledger counts as unknown. */
  async lastRequest(): Promise<number | undefined> {
    try {
      const parsed = JSON.parse(await readFile(this.path, 'utf8')) as LedgerFile;
      const time = Date.parse(parsed.keyed?.last_request ?? '');
      return Number.isNaN(time) ? undefined : time;
    } catch {
      return undefined;
    }
  }

  /** Records a request about to be sent; throws when it cannot, and then the request must not be sent. */
  async record(at: number): Promise<void> {
    // Not mkdir's recursive option: it spins without end under a parent that refuses the child (see directories.ts).
    await makeDirectories(dirname(this.path), 0o700);
    const content: LedgerFile = { keyed: { last_request: new Date(at).toISOString() } };
    await writeSecretFile(this.path, `${JSON.stringify(content)}\n`);
  }
}
