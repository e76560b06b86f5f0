// Benchmarks import nothing from test/: the tests may import any file, so what both need
// lives outside test/ (benchmarks/third-party/), and changing a test helper cannot break a benchmark.
// Read from the TypeScript sources, as tsc resolves their relative specifiers.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import test from 'ava';
import { projectPath } from '../helpers/process.js';

/** Every .ts file under `dir`. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The module specifiers of static imports, re-exports and dynamic imports with a literal. */
function specifiers(source: string): string[] {
  const found = source.matchAll(/(?:^|\n)\s*(?:import|export)\b[^;'"]*?\bfrom\s+'([^']+)'|\bimport\(\s*'([^']+)'\s*\)|(?:^|\n)\s*import\s+'([^']+)'/g);
  return [...found].map((match) => match[1] ?? match[2] ?? match[3] ?? '');
}

test('no benchmark imports a file under test/', (t) => {
  const root = projectPath('');
  const testDir = resolve(root, 'test');
  const imports = sourceFiles(resolve(root, 'benchmarks')).flatMap((file) =>
    specifiers(readFileSync(file, 'utf8'))
      .filter((specifier) => specifier.startsWith('.'))
      .map((specifier) => ({ file: relative(root, file), target: resolve(dirname(file), specifier) })),
  );
  // The scan reads what it should: the harness is imported by every benchmark.
  t.true(
    imports.some(({ target }) => target === resolve(root, 'benchmarks/harness.js')),
    'imports of ./harness.js are found',
  );
  const fromTests = imports.filter(({ target }) => target.startsWith(`${testDir}/`)).map(({ file, target }) => `${file} imports ${relative(root, target)}`);
  t.deepEqual(fromTests, []);
});
