import { readFile } from 'node:fs/promises';
import type { z } from 'zod';
import { ConfigError } from '../errors.js';
import { formatIssues } from './format.js';
import { parseConfigJson } from './json-text.js';

/** The config file name that means standard input (`outpost check -c -`). */
export const stdinName = '-';

/** Validates `input` against `schema`; every problem is reported at once, each naming its option path. */
export function validateConfig<Schema extends z.ZodType>(schema: Schema, input: unknown, prefix: readonly PropertyKey[] = []): Readonly<z.output<Schema>> {
  const result = schema.safeParse(input);
  if (!result.success) throw new ConfigError(formatIssues(schema, result.error.issues, prefix));
  return deepFreeze(result.data);
}

/** What messages call a config file: its path as given, or `<stdin>`. */
export function configName(path: string): string {
  return path === stdinName ? '<stdin>' : path;
}

/**
 * Reads a JSON config file (`-`: standard input) before any validation. A top-level `"$schema"` string
 * is an editor's pointer to the file's JSON Schema (docs/reference/schema/): it is dropped here, so
 * the strict schemas, which refuse any key they do not know, never see it.
 */
export async function readConfigInput(path: string): Promise<unknown> {
  let text: string;
  try {
    text = path === stdinName ? await readStdin() : await readFile(path, 'utf8');
  } catch (error) {
    throw new ConfigError([`cannot read config file ${configName(path)}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`]);
  }
  return withoutSchemaKey(parseConfigJson(text, configName(path)));
}

/** `input` without its top-level `"$schema"` string, when it is an object that has one. */
export function withoutSchemaKey(input: unknown): unknown {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return input;
  const { $schema, ...rest } = input as Record<string, unknown>;
  return typeof $schema === 'string' ? rest : input;
}

/** Validates a config read by readConfigInput; each problem starts with the file's name. */
export function validateConfigInput<Schema extends z.ZodType>(schema: Schema, path: string, input: unknown): Readonly<z.output<Schema>> {
  try {
    return validateConfig(schema, input);
  } catch (error) {
    throw inConfigFile(path, error);
  }
}

/** Reads a JSON config file and validates it. */
export async function loadConfigFile<Schema extends z.ZodType>(schema: Schema, path: string): Promise<Readonly<z.output<Schema>>> {
  return validateConfigInput(schema, path, await readConfigInput(path));
}

/** `error` with each problem starting with the config file's name, when it is a ConfigError. */
export function inConfigFile(path: string, error: unknown): unknown {
  return error instanceof ConfigError ? new ConfigError(error.problems.map((problem) => `${configName(path)}: ${problem}`)) : error;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const member of Object.values(value)) deepFreeze(member);
  }
  return value;
}
