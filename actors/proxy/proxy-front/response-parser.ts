// An HTTP/1.1 response parser for the backend side of the proxy: the head, then the body framed by
// Content-Length, chunked transfer coding, or the end of the connection. Pure: bytes in, events out;
// the caller owns the socket. The body is handed over in the slices it arrived in, never copied.
import { OutpostError } from '../../../src/errors.js';
import { isToken, peerValueVerdict, withoutBlanks } from './http-grammar.js';

/**
 * A response head as the backend sent it. The fields stay a flat list, read once: the proxy walks them
 * in order to pass them on, and a record keyed by name (each name made a property, a repeated one an
 * array) would cost a string-table lookup per field on every response.
 */
export class ResponseHead {
  private record: Record<string, string | string[]> | undefined;

  constructor(
    readonly statusCode: number,
    readonly statusMessage: string,
    /** Name, value, name, value...: lower-case names, trimmed values, in the order sent. */
    readonly fields: readonly string[],
    /** The Content-Length value when the field came exactly once (checked only when it frames the body). */
    readonly contentLength: string | undefined,
    /** Whether the connection may carry another request after this response. */
    readonly keepAlive: boolean,
    /** Some value (or the reason phrase) has bytes 0x80-0xFF, held one code unit a byte: they go to the client as those bytes. */
    readonly hasObsText = false,
  ) {}

  /** The fields by name (a name sent several times has every value, in order); made on first use. */
  get headers(): Record<string, string | string[]> {
    if (this.record === undefined) {
      const record: Record<string, string | string[]> = {};
      for (let index = 0; index < this.fields.length; index += 2) {
        const name = this.fields[index]!;
        const value = this.fields[index + 1]!;
        const seen = record[name];
        record[name] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
      }
      this.record = record;
    }
    return this.record;
  }
}

export interface ResponseEvents {
  head(head: ResponseHead): void;
  /** Return false to stop parsing; call `resume` on the parser to go on. */
  data(chunk: Buffer): boolean;
  end(): void;
}

/** A chunk size: hex digits (RFC 9112 7.1), then blanks and extensions; 13 digits is past any safe integer's need. */
const chunkSizeLine = /^([0-9a-fA-F]{1,13})[ \t]*(?:;.*)?$/;

/** What a parser holds when every byte fed so far has been read: one for all, never written to. */
const nothingBuffered = Buffer.alloc(0);

/** Head bytes accepted before the response is refused as malformed. */
const maxHeadBytes = 64 * 1024;

export class MalformedResponse extends OutpostError {
  override readonly name: string = 'MalformedResponse';
  constructor(message: string, options?: ErrorOptions) {
    super('ERR_BAD_GATEWAY', message, options);
  }
}

type State =
  | { kind: 'head' }
  | { kind: 'length'; left: number }
  | { kind: 'chunk-size' }
  | { kind: 'chunk-data'; left: number }
  | { kind: 'chunk-end' }
  | { kind: 'trailer' }
  | { kind: 'until-close' }
  | { kind: 'done' };

export class ResponseParser {
  private state: State = { kind: 'head' };
  private buffered: Buffer = nothingBuffered;
  private paused = false;

  /** `bodiless`: the request was HEAD, so no response has a body whatever its headers say. */
  constructor(
    private readonly events: ResponseEvents,
    private readonly bodiless: boolean,
  ) {}

  get done(): boolean {
    return this.state.kind === 'done';
  }

  /** Whether the response's end is the connection's end (no length, not chunked). */
  get endsWithConnection(): boolean {
    return this.state.kind === 'until-close';
  }

  /**
   * Parses `bytes`; throws MalformedResponse on a response that cannot be read. `bytes` is used during
   * the call only (it may be a read buffer used again): what is left of it unparsed is copied.
   */
  feed(bytes: Buffer): void {
    this.buffered = this.buffered.length === 0 ? bytes : Buffer.concat([this.buffered, bytes]);
    try {
      this.run();
    } finally {
      if (this.buffered.length > 0 && this.buffered.buffer === bytes.buffer) this.buffered = Buffer.from(this.buffered);
    }
  }

  /** Goes on after a data event returned false. */
  resume(): void {
    this.paused = false;
    this.run();
  }

  /** The connection ended: the end of an until-close body, or a truncated response. */
  finish(): boolean {
    if (this.state.kind === 'until-close') {
      this.state = { kind: 'done' };
      this.events.end();
      return true;
    }
    return this.state.kind === 'done';
  }

  private run(): void {
    while (!this.paused && this.buffered.length > 0 && this.state.kind !== 'done') {
      if (!this.step()) return;
    }
    if (!this.paused && this.state.kind !== 'done' && this.state.kind === 'length' && this.state.left === 0) this.complete();
  }

  /** One step of the state machine; false when more bytes are needed. */
  private step(): boolean {
    const state = this.state;
    switch (state.kind) {
      case 'head':
        return this.readHead();
      case 'length':
      case 'chunk-data':
      case 'until-close': {
        const size = state.kind === 'until-close' ? this.buffered.length : Math.min(state.left, this.buffered.length);
        const whole = size === this.buffered.length;
        const chunk = whole ? this.buffered : this.buffered.subarray(0, size);
        this.buffered = whole ? nothingBuffered : this.buffered.subarray(size);
        if (state.kind !== 'until-close') state.left -= size;
        if (state.kind === 'chunk-data' && state.left === 0) this.state = { kind: 'chunk-end' };
        if (!this.events.data(chunk)) this.paused = true;
        // The end waits until the consumer takes more: it may still be writing this chunk out.
        if (state.kind === 'length' && state.left === 0 && !this.paused) this.complete();
        return true;
      }
      case 'chunk-size': {
        const line = this.takeLine();
        if (line === undefined) return false;
        const size = chunkSize(line);
        if (size === undefined) throw new MalformedResponse(`bad chunk size ${JSON.stringify(line.slice(0, 40))}`);
        this.state = size === 0 ? { kind: 'trailer' } : { kind: 'chunk-data', left: size };
        return true;
      }
      case 'chunk-end': {
        const line = this.takeLine();
        if (line === undefined) return false;
        if (line !== '') throw new MalformedResponse('a chunk is longer than its size');
        this.state = { kind: 'chunk-size' };
        return true;
      }
      case 'trailer': {
        const line = this.takeLine();
        if (line === undefined) return false;
        if (line === '') this.complete();
        return true;
      }
      case 'done':
        return false;
      default:
        throw new Error(`unexpected parser state ${JSON.stringify(state satisfies never)}`);
    }
  }

  private complete(): void {
    this.state = { kind: 'done' };
    this.events.end();
  }

  private takeLine(): string | undefined {
    const end = this.buffered.indexOf('\r\n');
    if (end === -1) {
      if (this.buffered.length > maxHeadBytes) throw new MalformedResponse('a line is too long');
      return undefined;
    }
    const line = this.buffered.toString('latin1', 0, end);
    this.buffered = this.buffered.subarray(end + 2);
    return line;
  }

  private readHead(): boolean {
    const end = this.buffered.indexOf('\r\n\r\n');
    if (end === -1) {
      if (this.buffered.length > maxHeadBytes) throw new MalformedResponse('the response head is too large');
      return false;
    }
    const text = this.buffered.toString('latin1', 0, end);
    this.buffered = end + 4 === this.buffered.length ? nothingBuffered : this.buffered.subarray(end + 4);
    const statusEnd = text.indexOf('\r\n');
    const statusLine = statusEnd === -1 ? text : text.slice(0, statusEnd);
    const status = /^HTTP\/1\.([01]) (\d{3})(?: (.*))?$/.exec(statusLine);
    if (status === null) throw new MalformedResponse(`bad status line ${JSON.stringify(statusLine.slice(0, 60))}`);
    const statusCode = Number(status[2]);
    const reasonVerdict = peerValueVerdict(status[3] ?? '');
    if (reasonVerdict === 'breaks-line') throw new MalformedResponse('the reason phrase holds a NUL');
    let hasObsText = reasonVerdict === 'obs-text';
    const fields: string[] = [];
    // The framing fields' values, joined by commas as a list field is (RFC 9110 section 5.3).
    let connection = '';
    let transferEncoding = '';
    let contentLength: string | undefined;
    let contentLengths = 0;
    for (let start = statusEnd === -1 ? text.length : statusEnd + 2; start < text.length; ) {
      const lineEnd = text.indexOf('\r\n', start);
      const line = text.slice(start, lineEnd === -1 ? text.length : lineEnd);
      start = lineEnd === -1 ? text.length : lineEnd + 2;
      const colon = line.indexOf(':');
      if (colon <= 0) throw new MalformedResponse(`bad header line ${JSON.stringify(line.slice(0, 60))}`);
      // A line starting with a blank continues the one before (obs-fold): refused rather than read as a field of its own (RFC 9112 section 5.2).
      if (line.charCodeAt(0) === 0x20 || line.charCodeAt(0) === 0x09) throw new MalformedResponse('a folded header line');
      // Blanks before the colon are removed, as RFC 9112 section 5.1 asks of a proxy; what is left must be a token.
      const name = withoutBlanks(line.slice(0, colon)).toLowerCase();
      if (!isToken(name)) throw new MalformedResponse(`a header name that is not a token ${JSON.stringify(name.slice(0, 60))}`);
      const value = withoutBlanks(line.slice(colon + 1));
      // The head was split at CR LF: a CR, LF or NUL still in a value would split or cut the client's head.
      const verdict = peerValueVerdict(value);
      if (verdict === 'breaks-line') throw new MalformedResponse(`the ${name} header holds a bare CR, LF or NUL`);
      if (verdict === 'obs-text') hasObsText = true;
      fields.push(name, value);
      if (name === 'connection') connection += connection === '' ? value : `,${value}`;
      else if (name === 'transfer-encoding') transferEncoding += transferEncoding === '' ? value : `,${value}`;
      else if (name === 'content-length') {
        contentLength = contentLengths === 0 ? value : undefined;
        contentLengths++;
      }
    }
    // 1xx heads (100 Continue, 103 Early Hints) come before the real one.
    if (statusCode < 200) return true;
    // Options and codings are list elements compared whole: `closed-caption` is not `close`.
    const options = listElements(connection);
    const keepAlive = status[1] === '1' ? !options.includes('close') : options.includes('keep-alive');
    const codings = listElements(transferEncoding);
    if (this.bodiless || statusCode === 204 || statusCode === 304) this.state = { kind: 'length', left: 0 };
    else if (codings.at(-1) === 'chunked') this.state = { kind: 'chunk-size' };
    // Codings that do not end in chunked: the body runs to the connection's end, whatever
    // Content-Length says (RFC 9112 section 6.3, rule 4).
    else if (codings.length > 0) this.state = { kind: 'until-close' };
    else if (contentLength !== undefined && /^\d+$/.test(contentLength)) this.state = { kind: 'length', left: Number(contentLength) };
    else if (contentLengths > 0) throw new MalformedResponse('bad content-length');
    else this.state = { kind: 'until-close' };
    this.events.head(new ResponseHead(statusCode, status[3] ?? '', fields, contentLength, keepAlive && this.state.kind !== 'until-close', hasObsText));
    return true;
  }
}

/**
 * The size a chunk-size line gives, or undefined. Only the line's hex digits are given to parseInt,
 * which alone would take `-0`, `+5`, `0x5` and `5g` for sizes and read damaged framing as a body.
 */
function chunkSize(line: string): number | undefined {
  const digits = chunkSizeLine.exec(line)?.[1];
  return digits === undefined ? undefined : Number.parseInt(digits, 16);
}

/** The elements of a comma-separated list field (RFC 9110 section 5.6.1), lower case, empty ones dropped. */
function listElements(value: string): string[] {
  return value
    .toLowerCase()
    .split(',')
    .map((element) => element.trim())
    .filter((element) => element !== '');
}
