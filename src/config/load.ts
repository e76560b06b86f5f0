import { readFile } from 'node:fs/promises';
import type { z } from 'zod';
import { ConfigError } from '../errors.js';
import { formatIssues } from './format.js';

/** Validates `input` against `schema`; every problem is reported at once, each naming its option path. */
export function validateConfig<Schema extends z.ZodType>(schema: Schema, input: unknown, prefix: readonly PropertyKey[] = []): Readonly<z.output<Schema>> {
  const result = schema.safeParse(input);
  if (!result.success) throw new ConfigError(formatIssues(schema, result.error.issues, prefix));
  return deepFreeze(result.data);
}

/** Reads a JSON config file and validates it. */
export async function loadConfigFile<Schema extends z.ZodType>(schema: Schema, path: string): Promise<Readonly<z.output<Schema>>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ConfigError([`cannot read config file ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`]);
  }
  let input: unknown;
  try {
    input = JSON.parse(text);
  } catch (error) {
    throw new ConfigError([`${path} is not valid JSON: ${(error as Error).message}`]);
  }
  try {
    return validateConfig(schema, input);
  } catch (error) {
    if (error instanceof ConfigError) throw new ConfigError(error.problems.map((problem) => `${path}: ${problem}`));
    throw error;
  }
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const member of Object.values(value)) deepFreeze(member);
  }
  return value;
}
