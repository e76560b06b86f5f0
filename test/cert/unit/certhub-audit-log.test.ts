// The audit log's file and chain without threads: appends, pages read backwards, the verdicts on
// edited, removed, inserted and torn lines, and the writer cutting a torn line at open.
import { appendFile, readFile, stat, writeFile } from 'node:fs/promises';
import test, { type ExecutionContext } from 'ava';
import { AuditFile, auditFilePath } from '../../../actors/cert/audit/audit-file.js';
import { genesisHash, lineHash, verifyChain } from '../../../actors/cert/audit/chain.js';
import type { AuditInput } from '../../../actors/cert/audit/entry.js';
import type { Logger } from '../../../src/log/record.js';
import { tempDir } from '../../helpers/qpool.js';

const warnings: string[] = [];
const log: Logger = { error: () => {}, warn: (message) => warnings.push(message), info: () => {}, debug: () => {} };

function input(index: number, action: AuditInput['action'] = 'add', domain = `d${index}.example.test`): AuditInput {
  return { at: new Date(1_700_000_000_000 + index * 1000).toISOString(), action, by: 'key', client: '127.0.0.1', domain, outcome: 'ok' };
}

async function fileWith(t: ExecutionContext, count: number): Promise<{ dir: string; file: AuditFile }> {
  const dir = await tempDir(t, 'audit-');
  const file = await AuditFile.open(dir, log);
  await file.append(Array.from({ length: count }, (_, index) => input(index + 1)));
  return { dir, file };
}

test('entries chain from the genesis, one line each, in a 0600 file that verifies', async (t) => {
  const { dir, file } = await fileWith(t, 3);
  await file.close();
  const text = await readFile(auditFilePath(dir), 'utf8');
  const lines = text.trimEnd().split('\n');
  t.is(lines.length, 3);
  const entries = lines.map((line) => JSON.parse(line) as { seq: number; prev: string });
  t.is(entries[0]?.prev, genesisHash);
  t.is(entries[1]?.prev, lineHash(lines[0] ?? ''));
  t.deepEqual(
    entries.map(({ seq }) => seq),
    [1, 2, 3],
  );
  t.is((await stat(auditFilePath(dir))).mode & 0o777, 0o600);
  t.like(verifyChain(Buffer.from(text)), { ok: true, entries: 3, torn: null, lastHash: lineHash(lines[2] ?? '') });
});

test('a reopened file goes on from its last line', async (t) => {
  const { dir, file } = await fileWith(t, 2);
  await file.close();
  const again = await AuditFile.open(dir, log);
  await again.append([input(3)]);
  await again.close();
  t.like(verifyChain(await readFile(auditFilePath(dir))), { ok: true, entries: 3 });
});

test('an edited line, a removed line, an inserted line and a removed first line are each named', async (t) => {
  const { dir, file } = await fileWith(t, 5);
  await file.close();
  const lines = (await readFile(auditFilePath(dir), 'utf8')).trimEnd().split('\n');
  const verdict = (changed: string[]) => verifyChain(Buffer.from(`${changed.join('\n')}\n`));

  const edited = [...lines];
  edited[2] = (edited[2] ?? '').replace('d3.example.test', 'd9.example.test');
  t.like(verdict(edited), { ok: false, line: 4 }, 'an edit breaks the prev of the line after it');
  t.regex((verdict(edited) as { problem: string }).problem, /line 3 or this line was changed/);

  t.like(verdict(lines.filter((_, index) => index !== 1)), { ok: false, line: 2 }, 'a removed line');
  t.like(verdict([...lines.slice(0, 2), lines[1] ?? '', ...lines.slice(2)]), { ok: false, line: 3 }, 'a repeated line');
  t.like(verdict(lines.slice(1)), { ok: false, line: 1 }, 'the first line removed');
  t.like(verdict([...lines.slice(0, 4), 'not json']), { ok: false, line: 5, problem: 'is not an audit entry (JSON with seq and prev)' });
});

test('a torn last line is reported as torn, not as tampering; the writer cuts it at open and records the cut', async (t) => {
  const { dir, file } = await fileWith(t, 4);
  await file.close();
  const torn = '{"seq":5,"prev":"ab';
  await appendFile(auditFilePath(dir), torn);
  t.like(verifyChain(await readFile(auditFilePath(dir))), { ok: true, entries: 4, torn: { afterLine: 4, bytes: torn.length } });

  warnings.length = 0;
  const reopened = await AuditFile.open(dir, log);
  const page = await reopened.page({ limit: 2 });
  await reopened.close();
  t.like(page.entries[0], { seq: 5, action: 'audit.torn', note: `${torn.length} bytes of a torn line cut` });
  t.like(verifyChain(await readFile(auditFilePath(dir))), { ok: true, entries: 5, torn: null });
  t.true(warnings.some((line) => line.includes('torn last line')));
});

test('a file that is nothing but a torn line starts the chain afresh after the cut', async (t) => {
  const dir = await tempDir(t, 'audit-');
  await writeFile(auditFilePath(dir), '{"seq":1', { mode: 0o600 });
  const file = await AuditFile.open(dir, log);
  await file.append([input(1)]);
  await file.close();
  t.like(verifyChain(await readFile(auditFilePath(dir))), { ok: true, entries: 2 });
});

test('pages go newest first, by action and domain (full name or label), and on with next_before', async (t) => {
  const dir = await tempDir(t, 'audit-');
  const file = await AuditFile.open(dir, log);
  // Past two read chunks (256 KiB each), so lines cross chunk boundaries.
  const many = Array.from({ length: 6000 }, (_, index) =>
    input(index + 1, index % 3 === 0 ? 'fetch' : 'add', index % 2 === 0 ? 'app.example.test' : `d${index}.example.test`),
  );
  await file.append(many);
  t.true((await stat(auditFilePath(dir))).size > 512 * 1024);

  const first = await file.page({ limit: 10 });
  t.deepEqual(
    first.entries.map(({ seq }) => seq),
    Array.from({ length: 10 }, (_, index) => 6000 - index),
  );
  t.is(first.next_before, 5991);

  let seen = 0;
  let before: number | undefined;
  for (;;) {
    const page = await file.page({ limit: 500, action: 'fetch', domain: 'app', ...(before === undefined ? {} : { before }) });
    for (const entry of page.entries) t.true(entry.action === 'fetch' && entry.domain === 'app.example.test' && (before === undefined || entry.seq < before));
    seen += page.entries.length;
    if (page.next_before === null) break;
    before = page.next_before;
  }
  t.is(seen, many.filter((entry) => entry.action === 'fetch' && entry.domain === 'app.example.test').length);
  t.deepEqual((await file.page({ limit: 5, domain: 'nothere' })).entries, []);
  await file.close();
  t.like(verifyChain(await readFile(auditFilePath(dir))), { ok: true, entries: 6000 });
});
