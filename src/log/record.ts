// A log record as it travels from an actor to the supervisor and from the ring buffer to a page.

export const logLevels = ['error', 'warn', 'info', 'debug'] as const;
export type LogLevel = (typeof logLevels)[number];

export type LogValue = string | number | boolean | null;
export type LogFields = Record<string, LogValue>;

export interface LogRecord {
  /** Milliseconds since the epoch. */
  time: number;
  level: LogLevel;
  /** Who wrote it: an actor name (`pool`, `http-front#2`) or `supervisor`. */
  source: string;
  message: string;
  fields?: LogFields;
}

/** The logger every piece of code receives; the supervisor's and an actor's look the same. */
export interface Logger {
  error(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  debug(message: string, fields?: LogFields): void;
}

export function isLogLevel(value: unknown): value is LogLevel {
  return typeof value === 'string' && (logLevels as readonly string[]).includes(value);
}

/** Builds a Logger from a function that takes finished records. */
export function loggerFrom(source: string, write: (record: LogRecord) => void): Logger {
  const at = (level: LogLevel) => (message: string, fields?: LogFields) =>
    write(fields === undefined ? { time: Date.now(), level, source, message } : { time: Date.now(), level, source, message, fields });
  return { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') };
}
