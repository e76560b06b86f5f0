// Turns schema violations into sentences that name the option path and the rule:
// `roles.monitor.port must be at most 65535`, `roles.monitor.prot is not a known option (did you mean port?)`.
import type { z } from 'zod';

/** What the messages call the whole document and one of its keys: a config's options, a request body's fields. */
export interface IssueWords {
  whole: string;
  key: string;
}

const configWords: IssueWords = { whole: 'the config', key: 'option' };

export function formatIssues(schema: z.ZodType, issues: readonly z.core.$ZodIssue[], prefix: readonly PropertyKey[] = [], words = configWords): string[] {
  return issues.map((issue) => formatIssue(issue, [...prefix, ...issue.path], () => knownKeys(schema, issue.path), words));
}

function formatIssue(issue: z.core.$ZodIssue, path: readonly PropertyKey[], known: () => string[], words: IssueWords): string {
  const at = pathText(path, words.whole);
  switch (issue.code) {
    case 'invalid_type':
      return `${at} must be ${article(issue.expected)}`;
    case 'too_small':
      return `${at} must ${boundText('at least', 'more than', issue.minimum, issue.inclusive, issue.origin)}`;
    case 'too_big':
      return `${at} must ${boundText('at most', 'less than', issue.maximum, issue.inclusive, issue.origin)}`;
    case 'unrecognized_keys':
      return issue.keys.map((key) => `${pathText([...path, key], words.whole)} is not a known ${words.key}${suggestion(key, known())}`).join('\n');
    case 'invalid_value':
      return `${at} must be one of ${issue.values.map((value) => JSON.stringify(value)).join(', ')}`;
    case 'invalid_format':
      return `${at} must be ${issue.format === 'regex' ? 'in the expected format' : `a valid ${issue.format}`}`;
    case 'invalid_key':
      // A record's key broke its own rule (zod says only "Invalid key in record"): the rule, said of the key.
      return `${at} is not a valid key: ${issue.issues.map((keyIssue) => formatIssue(keyIssue, [], known, { ...words, whole: 'it' })).join(', ')}`;
    case 'not_multiple_of':
      return `${at} must be a multiple of ${String(issue.divisor)}`;
    case 'invalid_union': {
      // zod says only "Invalid input": the problems of the one form whose type the value has (a URL
      // or a list of URLs), or the types it may have when it has none of them. A discriminated
      // union's unknown discriminator has no forms to tell of, and its own message says it.
      if (issue.errors.length === 0) return `${at} ${issue.message}`;
      const wrongType = (branch: readonly z.core.$ZodIssue[]) => branch.length === 1 && branch[0]?.code === 'invalid_type' && branch[0].path.length === 0;
      const typed = issue.errors.filter((branch) => !wrongType(branch));
      const [branch] = typed;
      if (typed.length === 1 && branch !== undefined) return branch.map((inner) => formatIssue(inner, [...path, ...inner.path], known, words)).join('\n');
      if (typed.length === 0)
        return `${at} must be ${issue.errors.map((branch) => article(branch[0]?.code === 'invalid_type' ? branch[0].expected : 'value')).join(' or ')}`;
      return `${at} ${issue.message}`;
    }
    default:
      return `${at} ${issue.message}`;
  }
}

/**
 * A key written bare in a path (option names, and the domain names that key some maps, as
 * `domains.app.example.net.token`); any other is quoted, or an empty key read as nothing
 * (` is not a known option`) and one with blanks or quotes as words of the message.
 */
const bareKey = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;

export function pathText(path: readonly PropertyKey[], whole = configWords.whole): string {
  if (path.length === 0) return whole;
  return path
    .map((part, index) => {
      if (typeof part === 'number') return `[${part}]`;
      const key = String(part);
      if (!bareKey.test(key)) return `[${JSON.stringify(key)}]`;
      return index === 0 ? key : `.${key}`;
    })
    .join('');
}

function article(expected: string): string {
  const names: Record<string, string> = {
    object: 'an object',
    array: 'an array',
    int: 'an integer',
    number: 'a number',
    string: 'a string',
    boolean: 'true or false',
  };
  return names[expected] ?? `a ${expected}`;
}

function boundText(inclusiveWord: string, exclusiveWord: string, bound: number | bigint, inclusive: boolean | undefined, origin: string): string {
  const word = inclusive === false ? exclusiveWord : inclusiveWord;
  if (origin === 'string') return `be ${word} ${String(bound)} characters long`;
  if (origin === 'array' || origin === 'set') return `have ${word} ${String(bound)} entries`;
  return `be ${word} ${String(bound)}`;
}

interface SchemaDef {
  type: string;
  shape?: Record<string, { _zod: { def: SchemaDef } }>;
  innerType?: { _zod: { def: SchemaDef } };
  /** A pipe's first schema: what the input is checked against (`.transform()` makes a pipe). */
  in?: { _zod: { def: SchemaDef } };
}

/**
 * The keys the object schema at `path` accepts, looking through optional and default wrappers and
 * through transforms (certhub's config is one, so its typos went without a suggestion).
 */
export function knownKeys(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let def = (schema as unknown as { _zod: { def: SchemaDef } })._zod.def;
  const unwrap = () => {
    for (;;) {
      const inner = def.innerType ?? (def.type === 'pipe' ? def.in : undefined);
      if (inner === undefined) return;
      def = inner._zod.def;
    }
  };
  unwrap();
  for (const part of path) {
    const next = def.shape?.[String(part)];
    if (next === undefined) return [];
    def = next._zod.def;
    unwrap();
  }
  return def.shape === undefined ? [] : Object.keys(def.shape);
}

function suggestion(key: string, known: string[]): string {
  let best: { key: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(key, candidate);
    if (distance <= 2 && (best === undefined || distance < best.distance)) best = { key: candidate, distance };
  }
  return best === undefined ? '' : ` (did you mean ${best.key}?)`;
}

export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
