// The diode stream has no framing above the line, and the transport chops it anywhere: a value may
// arrive in any number of pieces, across separate runs of the receive command. The newline is the
// only synchronisation point, so a damaged line costs exactly that line.
import { valueSources, type ValueSource } from '../values/record.js';
import { ValueBatchBuilder } from '../values/batch.js';

/** A line is about 330 bytes; anything much longer is damage, and is skipped without being kept. */
export const maxLineBytes = 1024;
const newline = 0x0a;
const valuePattern = /^[0-9a-f]{256}$/;
const isoUtc = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?(?:Z|[+-](\d{2}):(\d{2}))$/;

export interface ParsedChunk {
  /** The valid values, as a value batch (values/batch.ts); empty when there were none. */
  values: Buffer;
  /** Why each damaged line was refused. */
  damaged: string[];
}

export class LineParser {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Inside a line already too long: everything up to the next newline is dropped. */
  private skipping = false;
  private readonly values = new ValueBatchBuilder();

  constructor(private readonly acceptedSources: ReadonlySet<ValueSource>) {}

  feed(chunk: Uint8Array): ParsedChunk {
    const damaged: string[] = [];
    const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    let start = 0;
    for (let end = bytes.indexOf(newline, start); end !== -1; end = bytes.indexOf(newline, start)) {
      this.take(bytes.subarray(start, end));
      this.finishLine(damaged);
      start = end + 1;
    }
    this.take(bytes.subarray(start));
    return { values: this.values.finish(), damaged };
  }

  /** Bytes of an unfinished line held for the next chunk. */
  get heldBytes(): number {
    return this.pendingBytes;
  }

  private take(piece: Buffer): void {
    if (this.skipping || piece.length === 0) return;
    if (this.pendingBytes + piece.length > maxLineBytes) {
      this.skipping = true;
      this.pending = [];
      this.pendingBytes = 0;
      return;
    }
    // Copied: the chunk's memory belongs to the stream and may be reused.
    this.pending.push(Buffer.from(piece));
    this.pendingBytes += piece.length;
  }

  private finishLine(damaged: string[]): void {
    if (this.skipping) {
      this.skipping = false;
      damaged.push(`longer than ${maxLineBytes} bytes`);
      return;
    }
    const line = Buffer.concat(this.pending, this.pendingBytes).toString('utf8');
    this.pending = [];
    this.pendingBytes = 0;
    if (line.trim() === '') return;
    const refused = this.readValue(line);
    if (refused !== undefined) damaged.push(refused);
  }

  /** Adds the line's value to the batch, or says why the line is damaged. */
  private readValue(line: string): string | undefined {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      return 'not JSON';
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return 'not a JSON object';
    const { value, timestamp, source, ...rest } = parsed as Record<string, unknown>;
    if (Object.keys(rest).length > 0) return `unexpected field ${Object.keys(rest)[0] ?? ''}`;
    if (typeof value !== 'string' || !valuePattern.test(value)) return 'value is not 256 lowercase hex characters';
    const collected = typeof timestamp === 'string' ? timestampMs(timestamp) : undefined;
    if (collected === undefined) return 'timestamp is not an ISO 8601 time';
    if (typeof source !== 'string' || !isValueSource(source) || !this.acceptedSources.has(source)) return `unknown source ${JSON.stringify(source)}`;
    this.values.pushHex(value, collected, source);
    return undefined;
  }
}

/**
 * The instant an ISO 8601 timestamp names, or undefined when it names none. Date.parse rolls an
 * impossible field over (February 30 is taken for March 2, 24:00 for the next midnight), so a value
 * would be served with a time its sender never wrote: each field is checked against the calendar.
 */
function timestampMs(text: string): number | undefined {
  const fields = isoUtc
    .exec(text)
    ?.slice(1)
    .map((field) => Number(field ?? 0));
  const milliseconds = Date.parse(text);
  if (fields === undefined || Number.isNaN(milliseconds)) return undefined;
  const [year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0, offsetHours = 0, offsetMinutes = 0] = fields;
  if (hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59) return undefined;
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return undefined;
  return milliseconds;
}

function isValueSource(source: string): source is ValueSource {
  return (valueSources as readonly string[]).includes(source);
}
