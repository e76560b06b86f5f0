// A config file's JSON, parsed with a syntax error that says where it is: `host.json is not valid JSON
// (line 3, column 9): unexpected number`, as an editor counts (from 1), not V8's character offset.
import { ConfigError } from '../errors.js';

export function parseConfigJson(text: string, name: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    const message = (error as Error).message;
    const offset = /at position (\d+)/.exec(message);
    const { line, column } = lineAndColumn(text, offset === null ? text.length : Number(offset[1]));
    const reason = message.replace(/\s*(in JSON )?at position \d+.*$/s, '').replace(/^Unexpected/, 'unexpected');
    throw new ConfigError([`${name} is not valid JSON (line ${line}, column ${column}): ${reason}`]);
  }
}

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const lineStart = before.lastIndexOf('\n') + 1;
  return { line: before.split('\n').length, column: offset - lineStart + 1 };
}
