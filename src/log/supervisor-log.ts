import { basename } from 'node:path';
import { fstatSync } from 'node:fs';
import winston from 'winston';
import { loggerFrom, type LogFields, type Logger, type LogLevel, type LogRecord } from './record.js';
import { escapeLogRecord } from './escape.js';
import { jsonLogLine } from './json-line.js';
import { LogFileTransport } from './log-file-transport.js';
import { redactFields } from './redact.js';
import { LogRing } from './ring.js';

export interface LogOptions {
  /** One JSON object a line instead of the human format. */
  json: boolean;
  /** Only warnings and errors. */
  quiet: boolean;
  /** Colour the human format; defaults to whether stderr is a terminal. */
  colour?: boolean;
  debug?: boolean;
  /** Also append JSON lines to this file. */
  file?: string;
  /** How many records the ring buffer keeps for pages. */
  ringCapacity?: number;
}

const levelColours: Record<LogLevel, string> = { error: '\x1b[31m', warn: '\x1b[33m', info: '\x1b[32m', debug: '\x1b[90m' };
const resetColour = '\x1b[0m';
const levelRank: Record<LogLevel, number> = { error: 0, warn: 1, info: 2, debug: 3 };

/**
 * The one place log records end up: every actor forwards its records here, the supervisor writes its
 * own here, and each record goes to winston (console and file) and to the ring buffer pages stream from.
 */
export class SupervisorLog {
  readonly ring: LogRing;
  private readonly winston: winston.Logger;
  /** Records above this rank (less severe) are dropped before the ring and every transport. */
  private maxRank: number;
  private console: winston.transport | undefined;
  private readonly file: LogFileTransport | undefined;

  constructor(options: LogOptions) {
    this.ring = new LogRing(options.ringCapacity ?? 1000);
    const colour = options.colour ?? (process.stderr.isTTY && !options.json);
    this.console = new winston.transports.Console({
      stderrLevels: ['error', 'warn', 'info', 'debug'],
      format: options.json ? jsonLine() : humanLine(colour, !toJournal()),
    });
    const transports: winston.transport[] = [this.console];
    if (options.file !== undefined) {
      this.file = new LogFileTransport(options.file, jsonLine(), (error) => reportLostFile(options.file!, error));
      transports.push(this.file);
    }
    const level: LogLevel = options.quiet ? 'warn' : options.debug ? 'debug' : 'info';
    this.maxRank = levelRank[level];
    this.winston = winston.createLogger({
      level,
      levels: levelRank,
      transports,
    });
  }

  write(record: LogRecord): void {
    if (levelRank[record.level] > this.maxRank) return;
    if (this.console !== undefined && (process.stderr.destroyed || process.stderr.errored !== null)) {
      // Nobody reads stderr any more (a closed pipe, see src/cli/output.ts): the file and the ring go on.
      this.winston.remove(this.console);
      this.console = undefined;
    }
    const safe = escapeLogRecord(record.fields === undefined ? record : { ...record, fields: redactFields(record.fields) });
    this.ring.push(safe);
    this.winston.log({ level: safe.level, message: safe.message, record: safe });
  }

  /** Changes which records are kept from now on (a reload of the host config). */
  setLevel(level: LogLevel): void {
    this.maxRank = levelRank[level];
    this.winston.level = level;
  }

  logger(source: string): Logger {
    return loggerFrom(source, (record) => this.write(record));
  }

  /** Waits until every transport has written what it was given. */
  async flush(): Promise<void> {
    const finished = new Promise<void>((resolve) => this.winston.on('finish', () => resolve()));
    const file = this.file;
    const fileFinished = file === undefined ? Promise.resolve() : new Promise<void>((resolve) => file.on('finish', () => resolve()));
    this.winston.end();
    await Promise.all([finished, fileFinished]);
  }
}

/** Said once, on stderr, which is the console's own stream: the file has stopped and the service goes on. */
function reportLostFile(path: string, error: NodeJS.ErrnoException): void {
  const program = basename(process.argv[1] ?? 'outpost').replace(/\.js$/, '');
  process.stderr.write(`${program}: cannot write the log file ${path} (${error.code ?? error.message}); going on without it, logging to the console only\n`);
}

interface WinstonInfo {
  record?: LogRecord;
  [key: string | symbol]: unknown;
}

function recordOf(info: WinstonInfo): LogRecord {
  if (info.record === undefined) throw new Error('log entry without a record: every entry goes through SupervisorLog.write');
  return info.record;
}

function jsonLine(): winston.Logform.Format {
  return winston.format.printf((info: WinstonInfo) => {
    return jsonLogLine(recordOf(info));
  });
}

/**
 * True when stderr is the journal's stream (systemd sets JOURNAL_STREAM to its device and inode):
 * the journal stamps every line itself, so a time of our own would show twice in `journalctl`.
 */
function toJournal(): boolean {
  const stream = process.env.JOURNAL_STREAM;
  if (stream === undefined || stream === '') return false;
  try {
    const { dev, ino } = fstatSync(2);
    return stream === `${dev}:${ino}`;
  } catch {
    return false;
  }
}

function humanLine(colour: boolean, withTime: boolean): winston.Logform.Format {
  return winston.format.printf((info: WinstonInfo) => {
    const record = recordOf(info);
    const level = colour ? `${levelColours[record.level]}${record.level.padEnd(5)}${resetColour}` : record.level.padEnd(5);
    const fields = record.fields === undefined ? '' : ` ${formatFields(record.fields)}`;
    return `${withTime ? `${new Date(record.time).toISOString()} ` : ''}${level} [${record.source}] ${record.message}${fields}`;
  });
}

function formatFields(fields: LogFields): string {
  return Object.entries(fields)
    .map(([name, value]) => `${name}=${typeof value === 'string' && /[\s"=]/.test(value) ? JSON.stringify(value) : String(value)}`)
    .join(' ');
}
