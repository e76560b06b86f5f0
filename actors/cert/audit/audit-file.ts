// audit.jsonl in the data folder (0600): appended to, never rewritten (chain.ts says the format and
// the rule for a torn line). Each append is one write of whole lines and an fsync; pages are read
// from the end backwards, so the newest entries cost the same however long the file has grown.
import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { secretFileMode } from '../../../src/store/secret.js';
import type { Logger } from '../../../src/log/record.js';
import { entryLine, genesisHash, lineHash, parseEntry } from './chain.js';
import type { AuditEntry, AuditInput } from './entry.js';
import type { AuditPage, AuditQuery } from './protocol.js';

export const auditFileName = 'audit.jsonl';
/** How much of the file one step of a backward read takes. */
const chunkBytes = 256 * 1024;

export function auditFilePath(dataDir: string): string {
  return join(dataDir, auditFileName);
}

export class AuditFile {
  private writing: Promise<void> = Promise.resolve();

  private constructor(
    private readonly handle: FileHandle,
    private seq: number,
    private prev: string,
  ) {}

  /** Opens (or makes) the file; a torn last line is cut and the cut recorded as an `audit.torn` entry. */
  static async open(dataDir: string, log: Logger, now: () => Date = () => new Date()): Promise<AuditFile> {
    const handle = await open(auditFilePath(dataDir), 'a+', secretFileMode);
    await handle.chmod(secretFileMode);
    const { size } = await handle.stat();
    const tail = await lastLines(handle, size);
    let seq = 0;
    let prev = genesisHash;
    if (tail.last !== undefined) {
      prev = lineHash(tail.last);
      const entry = parseEntry(tail.last.toString('utf8'));
      seq = entry?.seq ?? (await countLines(handle, size - tail.torn));
      if (entry === undefined) log.warn(`audit: the last line of ${auditFileName} is not an entry; run certhub audit verify`);
    }
    const file = new AuditFile(handle, seq, prev);
    if (tail.torn > 0) {
      await handle.truncate(size - tail.torn);
      log.warn(`audit: cut a torn last line of ${tail.torn} bytes from ${auditFileName} (an append cut short by a crash)`);
      await file.append([
        {
          at: now().toISOString(),
          action: 'audit.torn',
          by: 'certhub',
          client: '',
          domain: null,
          outcome: 'ok',
          note: `${tail.torn} bytes of a torn line cut`,
        },
      ]);
    }
    return file;
  }

  append(inputs: readonly AuditInput[]): Promise<void> {
    const appended = this.writing.then(async () => {
      if (inputs.length === 0) return;
      const lines: string[] = [];
      for (const input of inputs) {
        const line = entryLine({ seq: this.seq + 1, prev: this.prev, ...input });
        lines.push(`${line}\n`);
        this.seq += 1;
        this.prev = lineHash(line);
      }
      await this.handle.write(lines.join(''));
      await this.handle.datasync();
    });
    this.writing = appended.catch(() => undefined);
    return appended;
  }

  /** One page, newest first; reads only as far back as the page needs. */
  async page(query: AuditQuery): Promise<AuditPage> {
    await this.writing;
    const { size } = await this.handle.stat();
    const entries: AuditEntry[] = [];
    for await (const line of linesBackwards(this.handle, size)) {
      const entry = parseEntry(line.toString('utf8'));
      if (entry === undefined) continue;
      if (query.before !== undefined && entry.seq >= query.before) continue;
      if (query.action !== undefined && entry.action !== query.action) continue;
      if (query.domain !== undefined && !ofDomain(entry, query.domain)) continue;
      if (entries.length === query.limit) return { entries, next_before: entries.at(-1)?.seq ?? null };
      entries.push(entry);
    }
    return { entries, next_before: null };
  }

  async close(): Promise<void> {
    await this.writing;
    await this.handle.close();
  }
}

/** The last whole line (without "\n") and the bytes after it. */
async function lastLines(handle: FileHandle, size: number): Promise<{ last: Buffer | undefined; torn: number }> {
  let torn = size;
  for (let position = size; position > 0; ) {
    const length = Math.min(chunkBytes, position);
    position -= length;
    const chunk = Buffer.alloc(length);
    await handle.read(chunk, 0, length, position);
    const newline = chunk.lastIndexOf(10);
    if (newline !== -1) {
      torn = size - (position + newline + 1);
      break;
    }
  }
  for await (const line of linesBackwards(handle, size)) return { last: Buffer.from(line), torn };
  return { last: undefined, torn };
}

async function countLines(handle: FileHandle, size: number): Promise<number> {
  let count = 0;
  const lines = linesBackwards(handle, size);
  while (!(await lines.next()).done) count += 1;
  return count;
}

/** The whole lines of the first `size` bytes (without "\n"), last first; a torn tail is skipped. */
async function* linesBackwards(handle: FileHandle, size: number): AsyncGenerator<Buffer> {
  let position = size;
  let pending = Buffer.alloc(0);
  let sawNewline = false;
  while (position > 0) {
    const length = Math.min(chunkBytes, position);
    position -= length;
    const chunk = Buffer.alloc(length);
    await handle.read(chunk, 0, length, position);
    let bytes = Buffer.concat([chunk, pending]);
    if (!sawNewline) {
      // Bytes after the last "\n" are a torn line, not an entry.
      const last = bytes.lastIndexOf(10);
      if (last === -1) {
        pending = Buffer.alloc(0);
        continue;
      }
      bytes = bytes.subarray(0, last);
      sawNewline = true;
    }
    let stop = bytes.length;
    while (stop > 0) {
      const newline = bytes.lastIndexOf(10, stop - 1);
      if (newline === -1) break;
      yield bytes.subarray(newline + 1, stop);
      stop = newline;
    }
    pending = bytes.subarray(0, stop);
  }
  if (sawNewline) yield pending;
}

/** `domain` names the entry's domain in full, or is its label (the first part of the name). */
function ofDomain(entry: AuditEntry, domain: string): boolean {
  return entry.domain !== null && (entry.domain === domain || entry.domain.startsWith(`${domain}.`));
}
