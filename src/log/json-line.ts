// A log record as one JSON line, for log collectors. Who spoke and when are reserved keys: a call's
// own field of that name (qpool logs `source: keyed`, a caller may log `level`) must not hide them,
// so it is kept under `field_<name>` instead.
import { hostname } from 'node:os';
import type { LogRecord, LogValue } from './record.js';

export const reservedLogKeys = ['time', 'level', 'actor', 'role', 'msg', 'hostname', 'pid'] as const;

const reserved = new Set<string>(reservedLogKeys);
/** Read once: the line says which machine and which process wrote it when several logs are merged. */
const host = hostname();

export function jsonLogLine(record: LogRecord): string {
  const role = roleOf(record.source);
  const line: Record<string, LogValue> = {
    time: new Date(record.time).toISOString(),
    level: record.level,
    actor: record.source,
    ...(role === undefined ? {} : { role }),
    msg: record.message,
    hostname: host,
    pid: process.pid,
  };
  for (const [name, value] of Object.entries(record.fields ?? {})) {
    line[reserved.has(name) ? `field_${name}` : name] = value;
  }
  return JSON.stringify(line);
}

/** An actor is named `<role>/<name>` (`send/collector`); the supervisor belongs to no role. */
function roleOf(source: string): string | undefined {
  const slash = source.indexOf('/');
  return slash > 0 ? source.slice(0, slash) : undefined;
}
