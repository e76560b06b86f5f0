// budget.json in the data directory: when the new certificates still counted against the CA budget
// arrived. Written only when a new certificate arrives (at most `certificates` entries), so it costs
// nothing per change; kept apart from the domains because a removed domain's certificate still counts.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeSecretFile } from '../../../src/store/secret.js';

export const budgetFileName = 'budget.json';

export interface ReadLedger {
  ledger: number[];
  /** Why the file was not used, when it exists but is damaged (the budget then starts empty). */
  problem?: string;
}

export async function readBudgetLedger(dataDir: string): Promise<ReadLedger> {
  const path = join(dataDir, budgetFileName);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { ledger: [] };
    return { ledger: [], problem: `${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)}); counting the CA budget from empty` };
  }
  try {
    const { new_certificates: entries } = JSON.parse(text) as { new_certificates?: unknown };
    if (!Array.isArray(entries)) throw new Error('new_certificates is not a list');
    const ledger = entries.map((entry) => (typeof entry === 'string' ? Date.parse(entry) : NaN));
    if (ledger.some(Number.isNaN)) throw new Error('new_certificates holds something other than times');
    return { ledger };
  } catch (error) {
    return { ledger: [], problem: `${path} is not usable (${(error as Error).message}); counting the CA budget from empty` };
  }
}

export function writeBudgetLedger(dataDir: string, ledger: readonly number[]): Promise<void> {
  const text = JSON.stringify({ new_certificates: ledger.map((at) => new Date(at).toISOString()) }, null, 2);
  return writeSecretFile(join(dataDir, budgetFileName), `${text}\n`);
}
