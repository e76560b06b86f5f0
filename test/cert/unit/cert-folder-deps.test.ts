// cert's folders depend one way: the domains actor's book (domains/) calls the dns and acme actors
// through their protocols, and neither worker imports the book nor the other worker. Read from the
// TypeScript sources as tsc reads their imports (static, type-only, re-exports, dynamic), and from
// `new URL('...', import.meta.url)` references.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import test from 'ava';
import ts from 'typescript';
import { projectPath } from '../../helpers/process.js';

const certDir = projectPath('actors/cert');
const checked = ['dns', 'acme', 'domains'] as const;
type Folder = (typeof checked)[number];

/** The folders each folder must not reach. */
const forbidden: Record<Folder, readonly Folder[]> = {
  dns: ['domains', 'acme'],
  acme: ['domains', 'dns'],
  domains: [],
};

interface Reference {
  file: string;
  line: number;
  from: Folder;
  to: string | undefined;
  specifier: string;
}

/** Every .ts file under `dir`. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The folder of actors/cert that `path` lies in, when it lies in one. */
function certFolder(path: string): string | undefined {
  const inside = relative(certDir, path);
  if (inside.startsWith('..') || !inside.includes(sep)) return undefined;
  return inside.split(sep)[0];
}

/** The relative module references of `file`, each with its line. */
function references(file: string, from: Folder): Reference[] {
  const source = readFileSync(file, 'utf8');
  const lineOf = (position: number) => source.slice(0, position).split('\n').length;
  const imports = ts.preProcessFile(source, true, true).importedFiles.map(({ fileName, pos }) => ({ specifier: fileName, position: pos }));
  const urls = [...source.matchAll(/new URL\(\s*'([^']+)'\s*,\s*import\.meta\.url/g)].map((match) => ({ specifier: match[1] ?? '', position: match.index }));
  return [...imports, ...urls]
    .filter(({ specifier }) => specifier.startsWith('.'))
    .map(({ specifier, position }) => ({
      file: relative(certDir, file),
      line: lineOf(position),
      from,
      to: certFolder(resolve(dirname(file), specifier)),
      specifier,
    }));
}

const all = checked.flatMap((folder) => sourceFiles(join(certDir, folder)).map((file) => references(file, folder))).flat();

test('the scan reads what it should: the book imports both workers protocols', (t) => {
  const reached = (from: Folder, to: Folder) => all.some((reference) => reference.from === from && reference.to === to);
  t.true(reached('domains', 'dns'), 'domains/ imports dns/protocol.ts');
  t.true(reached('domains', 'acme'), 'domains/ imports acme/protocol.ts');
  t.true(
    all.some((reference) => reference.specifier === './index.js'),
    'new URL references are read (kind.ts)',
  );
});

test('dns/ and acme/ import nothing from domains/ nor from each other', (t) => {
  const wrong = all
    .filter(({ from, to }) => to !== undefined && (forbidden[from] as readonly string[]).includes(to))
    .map(({ file, line, specifier }) => `actors/cert/${file}:${line} imports ${specifier}`);
  t.deepEqual(wrong, []);
});
