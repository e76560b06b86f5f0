// The proxy's access log: one line per request a route answered (forwarded, or refused by the proxy
// itself), as JSON or in the combined format web servers share (nginx's and Apache's `combined`, which
// log analysers read). Each front thread appends to the same file (O_APPEND: each line lands whole) or
// writes to standard output.
import { createWriteStream, type WriteStream } from 'node:fs';
import type { Logger } from '../../../src/log/record.js';

export interface AccessRecord {
  /** Date.now() when the request arrived. */
  startedAt: number;
  client: string;
  method: string;
  target: string;
  host: string;
  status: number;
  /** Body bytes handed to the client. */
  bytes: number;
  durationMs: number;
  /** The backend that answered; empty when none did (the proxy answered itself). */
  backend: string;
  requestId: string;
  userAgent: string;
  referer: string;
}

export type AccessLogFormat = 'json' | 'combined';

export function jsonLine(record: AccessRecord): string {
  return `${JSON.stringify({
    time: new Date(record.startedAt).toISOString(),
    client: record.client,
    method: record.method,
    target: record.target,
    host: record.host,
    status: record.status,
    bytes: record.bytes,
    duration_ms: Math.round(record.durationMs * 1000) / 1000,
    backend: record.backend,
    request_id: record.requestId,
    user_agent: record.userAgent,
    referer: record.referer,
  })}\n`;
}

const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const two = (value: number) => String(value).padStart(2, '0');

/** `01/Dec/2026:15:43:04 +0000`: nginx's $time_local, in UTC so that every thread and host agree. */
function commonLogTime(at: number): string {
  const date = new Date(at);
  return `${two(date.getUTCDate())}/${months[date.getUTCMonth()]}/${date.getUTCFullYear()}:${two(date.getUTCHours())}:${two(date.getUTCMinutes())}:${two(date.getUTCSeconds())} +0000`;
}

/** As nginx escapes a logged value: `"`, `\`, control bytes and bytes from 0x7F up as \xHH. */
function escaped(value: string): string {
  let text = '';
  for (let index = 0; index < value.length; index++) {
    const code = value.charCodeAt(index);
    if (code >= 0x20 && code < 0x7f && code !== 0x22 && code !== 0x5c) text += value[index];
    else text += code > 0xff ? '?' : `\\x${code.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return text;
}

/** nginx's `combined`, then the request id: `$remote_addr - - [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" "$request_id"`. */
export function combinedLine(record: AccessRecord): string {
  const request = escaped(`${record.method} ${record.target} HTTP/1.1`);
  const referer = record.referer === '' ? '-' : escaped(record.referer);
  const agent = record.userAgent === '' ? '-' : escaped(record.userAgent);
  return `${record.client} - - [${commonLogTime(record.startedAt)}] "${request}" ${record.status} ${record.bytes} "${referer}" "${agent}" "${record.requestId}"\n`;
}

export class AccessLog {
  private readonly stream: WriteStream | undefined;
  private readonly format: (record: AccessRecord) => string;

  /** `path`: a file appended to, or `-` for standard output. */
  constructor(path: string, format: AccessLogFormat, log: Logger) {
    this.format = format === 'json' ? jsonLine : combinedLine;
    if (path !== '-') {
      this.stream = createWriteStream(path, { flags: 'a', mode: 0o640 });
      // A file that cannot be written must not end the thread that serves the routes: said once, in the proxy's own log.
      this.stream.once('error', (error) => log.error('access log cannot be written', { path, error: error.message }));
      this.stream.on('error', () => {});
    }
  }

  write(record: AccessRecord): void {
    const line = this.format(record);
    if (this.stream === undefined) process.stdout.write(line);
    else this.stream.write(line);
  }

  close(): void {
    this.stream?.end();
  }
}
