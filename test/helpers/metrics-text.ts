// Reading a Prometheus text exposition in tests.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ExecutionContext } from 'ava';
import { runToEnd } from './process.js';

/** The value of the first sample of `name` whose labels include `labels`. */
export function sampleValue(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? (\S+)$/.exec(line);
    if (match?.[1] !== name) continue;
    const labelText = match[2] ?? '';
    if (Object.entries(labels).every(([key, value]) => labelText.includes(`${key}="${value}"`))) return Number(match[3]);
  }
  return undefined;
}

/** Fails the test unless `promtool check metrics` (Debian's prometheus) passes on `text`, written to `dir`. */
export async function promtoolCheck(t: ExecutionContext, dir: string, text: string): Promise<void> {
  const file = join(dir, 'metrics.txt');
  await writeFile(file, text);
  const checked = await runToEnd('sh', ['-c', `promtool check metrics < ${file}`]);
  t.is(checked.code, 0, `${checked.stdout}${checked.stderr}`);
}
