// src/ is what two or more roles share, and names none of them (ARCHITECTURE.md): no role, no role's
// executable, no error code or job a role declares. Read outside comments, which may cite a role as
// the reason for a figure: in every string (import paths, messages, template text) a role's or an
// executable's name as a whole word (letters, digits, `_` and `-` bind, so `cert_file_name` is not
// `cert`), and anywhere a role's error code or job name. The names come from the code: the roles of
// actors/registry.ts, the executables of package.json, the codes of each role's definition and the
// jobs each role's jobs.ts declares.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import test from 'ava';
import ts from 'typescript';
import { roles } from '../../actors/registry.js';
import { projectPath } from '../helpers/process.js';

function files(dir: string, named: (name: string) => boolean): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && named(entry.name))
    .map((entry) => join(entry.parentPath, entry.name));
}

/** Roles and the executables that run them (outpost runs them all and names none). */
function roleWords(): string[] {
  const bins = Object.keys((JSON.parse(readFileSync(projectPath('package.json'), 'utf8')) as { bin: Record<string, string> }).bin);
  return [...roles.map((role) => role.name), ...bins.filter((bin) => bin !== 'outpost')];
}

/** The job names every role's jobs.ts declares (src/jobs/job.ts). */
async function jobNames(): Promise<string[]> {
  const names: string[] = [];
  for (const file of files(projectPath('actors'), (name) => name === 'jobs.ts')) {
    const compiled = projectPath(`dist/${relative(projectPath(''), file).replace(/\.ts$/, '.js')}`);
    for (const value of Object.values((await import(pathToFileURL(compiled).href)) as Record<string, unknown>)) {
      if (typeof value === 'object' && value !== null && 'entry' in value && value.entry instanceof URL && 'name' in value && typeof value.name === 'string')
        names.push(value.name);
    }
  }
  return names;
}

interface Finding {
  line: number;
  what: string;
}

/** What of `words` (whole words in strings) and `names` (anywhere outside comments) a source names. */
function namesIn(source: string, words: readonly string[], names: readonly string[]): Finding[] {
  const word = new RegExp(`(?<![\\w-])(${words.map((w) => w.replaceAll('-', '\\-')).join('|')})(?![\\w-])`);
  const name = new RegExp(`(?<!\\w)(${names.join('|')})(?!\\w)`);
  const file = ts.createSourceFile('scanned.ts', source, ts.ScriptTarget.Latest, true);
  const found: Finding[] = [];
  const visit = (node: ts.Node): void => {
    const isText = ts.isStringLiteralLike(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node);
    const text = isText || ts.isIdentifier(node) || ts.isPrivateIdentifier(node) ? (node as ts.StringLiteral | ts.Identifier).text : undefined;
    if (text !== undefined) {
      const match = (isText && words.length > 0 ? word.exec(text) : null) ?? (names.length > 0 ? name.exec(text) : null);
      if (match !== null)
        found.push({
          line: file.getLineAndCharacterOfPosition(node.getStart()).line + 1,
          what: `${isText ? 'a string' : 'an identifier'} names ${match[1]}: ${JSON.stringify(text.length > 80 ? `${text.slice(0, 77)}...` : text)}`,
        });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

test('no file in src/ names a role, its executable, its error codes or its jobs', async (t) => {
  const words = roleWords();
  const codes = roles.flatMap((role) => Object.keys(role.errors ?? {}));
  const jobs = await jobNames();
  t.true(words.includes('qpool') && codes.includes('ERR_DNS_PROVIDER') && jobs.includes('pbkdf2Sha256'), 'the names are read from the code');
  const findings = files(projectPath('src'), (name) => name.endsWith('.ts')).flatMap((file) =>
    namesIn(readFileSync(file, 'utf8'), words, [...codes, ...jobs]).map(({ line, what }) => `${relative(projectPath(''), file)}:${line}: ${what}`),
  );
  t.deepEqual(findings, []);
});

test('the scan reads strings, import paths, codes and jobs, and skips comments and longer words', (t) => {
  const source = [
    '// the qpool pool, a certhub figure, ERR_DNS_PROVIDER',
    "import { x } from '../../actors/qpool/index.js';",
    'const help = `run ${x} as certhub-agent`;',
    "throw new OutpostError('ERR_DNS_PROVIDER', 'the proxy failed');",
    'run(pbkdf2Sha256);',
    "const options = { cert_file_name: 'a', ssl: 'send-buffer', mode: 'sender' };",
  ].join('\n');
  t.deepEqual(
    namesIn(source, ['qpool', 'certhub', 'certhub-agent', 'proxy', 'send', 'cert'], ['ERR_DNS_PROVIDER', 'pbkdf2Sha256']).map(
      ({ line, what }) => `${line}: ${what}`,
    ),
    [
      '2: a string names qpool: "../../actors/qpool/index.js"',
      '3: a string names certhub-agent: " as certhub-agent"',
      '4: a string names ERR_DNS_PROVIDER: "ERR_DNS_PROVIDER"',
      '4: a string names proxy: "the proxy failed"',
      '5: an identifier names pbkdf2Sha256: "pbkdf2Sha256"',
    ],
  );
});
