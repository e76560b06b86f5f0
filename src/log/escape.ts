// Text from outside (a CA's error, a DNS provider's answer, a request's path or header) is logged as
// data, never as terminal control: control characters, ANSI escapes and line breaks would let it forge
// log lines, rewrite a terminal or hide what came before. Escaped where a record enters the
// log (SupervisorLog.write), in the message, the source and every field, names and nested values too.
import type { LogFields, LogRecord } from './record.js';

/** C0 and C1 controls (ESC, CR, LF, ...), DEL, the Unicode line separators and the bidirectional overrides. */
// eslint-disable-next-line no-control-regex -- matching control characters is this file's job
const unsafe = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;
const unsafeAll = new RegExp(unsafe.source, 'gu');
const named: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** `text` with every unsafe character written as an escape (`\n`, `\u001b`); the same string when there is none. */
export function escapeLogText(text: string): string {
  if (!unsafe.test(text)) return text;
  return text.replace(unsafeAll, (character) => named[character] ?? `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A record as it may be written: message, source, field names and field values (at any depth) escaped. */
export function escapeLogRecord(record: LogRecord): LogRecord {
  const escaped: LogRecord = { ...record, source: escapeLogText(record.source), message: escapeLogText(record.message) };
  if (record.fields !== undefined) escaped.fields = escapeValue(record.fields) as LogFields;
  return escaped;
}

/** Fields are typed flat, but a caller may still hand over an object or an array: those are escaped too. */
function escapeValue(value: unknown): unknown {
  if (typeof value === 'string') return escapeLogText(value);
  if (Array.isArray(value)) return value.map(escapeValue);
  if (typeof value === 'object' && value !== null && !(value instanceof Date)) {
    return Object.fromEntries(Object.entries(value).map(([name, member]) => [escapeLogText(name), escapeValue(member)]));
  }
  return value;
}
