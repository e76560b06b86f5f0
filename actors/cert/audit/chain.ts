// The hash chain of the audit log, and its rule for a line torn by a crash.
//
// The file is JSON Lines: each entry is one line ending in "\n". An entry's `prev` is the SHA-256 (hex)
// of the bytes of the line before it, without its "\n"; the first entry's `prev` is the genesis, 64
// zeros; `seq` counts lines from 1. Changing a line breaks the `prev` of the next; removing or inserting
// lines breaks `prev` and `seq`.
//
// Torn line: bytes after the last "\n" are a line whose append was cut short (a crash, a full disk):
// appends only ever add at the end, so only the last line can be torn. It is reported as torn, not as
// tampering, and the lines before it verify on their own. The writer cuts such bytes when it opens the
// file and records the cut as an `audit.torn` entry, so the chain goes on from the last whole line.
import { createHash } from 'node:crypto';
import type { AuditEntry } from './entry.js';

export const genesisHash = '0'.repeat(64);

export function lineHash(line: string | Uint8Array): string {
  return createHash('sha256').update(line).digest('hex');
}

/** The verdict on a whole file. */
export type ChainVerdict =
  | { ok: true; entries: number; lastHash: string; torn: { afterLine: number; bytes: number } | null }
  | { ok: false; line: number; problem: string };

/** Checks lines one at a time as they are read, so a file of any size verifies in constant memory. */
export class ChainVerifier {
  private expected = genesisHash;
  private count = 0;
  private failure: { line: number; problem: string } | null = null;

  /** One whole line, without its "\n". */
  line(bytes: Buffer): void {
    if (this.failure !== null) return;
    const number = this.count + 1;
    const entry = parseEntry(bytes.toString('utf8'));
    if (entry === undefined) {
      this.failure = { line: number, problem: 'is not an audit entry (JSON with seq and prev)' };
      return;
    }
    if (entry.prev !== this.expected) {
      this.failure = {
        line: number,
        problem:
          number === 1
            ? 'is the first line but its prev is not the genesis (lines before it were removed)'
            : `has a prev that is not the SHA-256 of line ${number - 1} (line ${number - 1} or this line was changed, or lines between them were removed)`,
      };
      return;
    }
    if (entry.seq !== number) {
      this.failure = { line: number, problem: `has seq ${entry.seq} (lines were removed or inserted before it)` };
      return;
    }
    this.expected = lineHash(bytes);
    this.count = number;
  }

  /** The end of the file; `tornBytes` is what followed the last "\n". */
  end(tornBytes: number): ChainVerdict {
    if (this.failure !== null) return { ok: false, ...this.failure };
    return { ok: true, entries: this.count, lastHash: this.expected, torn: tornBytes === 0 ? null : { afterLine: this.count, bytes: tornBytes } };
  }
}

/** Verifies a whole file's bytes. */
export function verifyChain(bytes: Buffer): ChainVerdict {
  const verifier = new ChainVerifier();
  let start = 0;
  for (let end = bytes.indexOf(10, start); end !== -1; end = bytes.indexOf(10, start)) {
    verifier.line(bytes.subarray(start, end));
    start = end + 1;
  }
  return verifier.end(bytes.length - start);
}

export function parseEntry(text: string): AuditEntry | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const entry = parsed as Partial<AuditEntry>;
  if (typeof entry.seq !== 'number' || typeof entry.prev !== 'string' || typeof entry.action !== 'string') return undefined;
  return entry as AuditEntry;
}

/** The line of `entry`, without its "\n"; `seq` and `prev` first, so a reader sees the chain at a glance. */
export function entryLine(entry: AuditEntry): string {
  const { seq, prev, ...rest } = entry;
  return JSON.stringify({ seq, prev, ...rest });
}
