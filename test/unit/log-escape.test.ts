// Log and terminal injection: text from a CA, a DNS provider or a request reaches the
// terminal, the log file and the panel's Logs tab escaped, in the message and in every field.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { escapeLogText } from '../../src/log/escape.js';
import type { LogFields } from '../../src/log/record.js';
import { SupervisorLog } from '../../src/log/supervisor-log.js';

const forgedLine = 'order failed\n2026-01-01T00:00:00.000Z info  [supervisor] admin logged in';
const terminalControl = '\x1b]0;pwned\x07\x1b[2J\x1b[31mred\r\u202eevil';

test('control characters, ANSI escapes, line breaks and bidi overrides are written as escapes', (t) => {
  t.is(escapeLogText(forgedLine), 'order failed\\n2026-01-01T00:00:00.000Z info  [supervisor] admin logged in');
  t.is(escapeLogText(terminalControl), '\\u001b]0;pwned\\u0007\\u001b[2J\\u001b[31mred\\r\\u202eevil');
  t.is(escapeLogText('\u0085\u2028\u009b\x7f\t'), '\\u0085\\u2028\\u009b\\u007f\\t');
  const plain = 'app.example.test: the CA said "rateLimited" (ünïcödé stays)';
  t.is(escapeLogText(plain), plain);
});

test('the terminal line, the log file and the ring get one line per record, whatever the message, the source and the fields hold', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'log-escape-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'outpost.log');
  const log = new SupervisorLog({ json: false, quiet: false, colour: false, file });
  let terminal = '';
  const write = process.stderr.write.bind(process.stderr);
  // Winston's console transport writes through process.stderr: what a terminal would receive.
  process.stderr.write = (chunk: string | Uint8Array) => {
    terminal += String(chunk);
    return true;
  };
  try {
    // Fields are typed flat, but what a provider answered can arrive nested.
    const fields = { error: forgedLine, [`name\n${terminalControl}`]: 'x', detail: { answer: terminalControl, list: [forgedLine] } } as unknown as LogFields;
    log.logger(`dns\r${terminalControl}`).warn(`${forgedLine} ${terminalControl}`, fields);
    await log.flush();
  } finally {
    process.stderr.write = write;
  }
  t.is(terminal.split('\n').length, 2, terminal);
  t.true(terminal.endsWith('\n'));
  t.notRegex(terminal, controlCharacter, 'no control character reaches the terminal');
  t.regex(terminal, /order failed\\n2026/);
  const lines = (await readFile(file, 'utf8')).trimEnd().split('\n');
  t.is(lines.length, 1);
  const [record] = log.ring.recent();
  const texts = textsOf(record);
  t.true(texts.length >= 8, texts.join(' | '));
  for (const text of texts) t.notRegex(text, new RegExp(`${controlCharacter.source}|\n`, 'u'), "the ring (the panel's Logs tab) holds only escaped text");
  t.is((record?.fields as unknown as { detail: { answer: string } }).detail.answer, '\\u001b]0;pwned\\u0007\\u001b[2J\\u001b[31mred\\r\\u202eevil');
});

/** C0 and C1 controls and the right-to-left override, except the newline ending a terminal line. */
// eslint-disable-next-line no-control-regex -- what the test looks for
const controlCharacter = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/u;

/** Every string in a value, keys included. */
function textsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, member]) => [key, ...textsOf(member)]);
}
