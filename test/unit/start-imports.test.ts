// What a thread loads before it can answer, which makes its cold start: ES modules imported statically are
// all read, compiled and run before the thread's first line, on the ready path of every role; a package
// only some later request needs is imported where it is used. Read from the TypeScript sources as the
// TypeScript compiler parses them (either quote style, imports and re-exports, `import type` left out),
// following relative specifiers as tsc resolves them. A dynamic `import()` loads at start where it runs
// before the thread answers: at a module's top level (run as the module loads) and in the body of the
// actor's start hook (`runActor(kind, { start })`, written inline or named from its own module); one
// inside any other function loads when that function is called.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import test from 'ava';
import ts from 'typescript';
import { projectPath } from '../helpers/process.js';

type FunctionBody = ts.FunctionLikeDeclaration;

/** A string literal's text: the specifier of an import, whatever its quotes. */
function literalText(node: ts.Node | undefined): string | undefined {
  return node !== undefined && ts.isStringLiteralLike(node) ? node.text : undefined;
}

/** The specifier of `import('...')`, when `node` is one with a literal specifier. */
function dynamicSpecifier(node: ts.Node): string | undefined {
  return ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword ? literalText(node.arguments[0]) : undefined;
}

/** The dynamic imports that run when `root` runs: inside it, not inside a function nested in it. */
function dynamicImportsRunBy(root: ts.Node): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node)) return;
    const specifier = dynamicSpecifier(node);
    if (specifier !== undefined) found.push(specifier);
    ts.forEachChild(node, visit);
  };
  ts.forEachChild(root, visit);
  return found;
}

/** The start hook of a `runActor(kind, { start })` call at the top level: its body, or the name it is given by. */
function startHooks(source: ts.SourceFile): (FunctionBody | string)[] {
  const hooks: (FunctionBody | string)[] = [];
  for (const statement of source.statements) {
    if (!ts.isExpressionStatement(statement) || !ts.isCallExpression(statement.expression)) continue;
    const call = statement.expression;
    const hooksArgument = call.arguments[1];
    if (!ts.isIdentifier(call.expression) || call.expression.text !== 'runActor' || hooksArgument === undefined) continue;
    if (!ts.isObjectLiteralExpression(hooksArgument)) continue;
    for (const property of hooksArgument.properties) {
      if (property.name === undefined || !ts.isIdentifier(property.name) || property.name.text !== 'start') continue;
      if (ts.isMethodDeclaration(property)) hooks.push(property);
      else if (ts.isPropertyAssignment(property)) {
        const value = property.initializer;
        if (ts.isArrowFunction(value) || ts.isFunctionExpression(value)) hooks.push(value);
        else if (ts.isIdentifier(value)) hooks.push(value.text);
      } else if (ts.isShorthandPropertyAssignment(property)) hooks.push(property.name.text);
    }
  }
  return hooks;
}

/** The function `name` declared at the top level of `source`. */
function topLevelFunction(source: ts.SourceFile, name: string): FunctionBody | undefined {
  for (const statement of source.statements) {
    if (ts.isFunctionDeclaration(statement) && statement.name?.text === name) return statement;
    if (!ts.isVariableStatement(statement)) continue;
    for (const declaration of statement.declarationList.declarations) {
      const value = declaration.initializer;
      if (
        ts.isIdentifier(declaration.name) &&
        declaration.name.text === name &&
        value !== undefined &&
        (ts.isArrowFunction(value) || ts.isFunctionExpression(value))
      )
        return value;
    }
  }
  return undefined;
}

const parsed = new Map<string, ts.SourceFile>();

/** `file` as the TypeScript compiler parses it (once for every walk). */
function parse(file: string): ts.SourceFile {
  let source = parsed.get(file);
  if (source === undefined) {
    source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
    parsed.set(file, source);
  }
  return source;
}

/** The specifiers a module loads as it is evaluated: static imports and re-exports (not type-only), and top-level `import()`. */
function specifiersLoadedWith(source: ts.SourceFile): string[] {
  const found: string[] = [];
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement) && statement.importClause?.isTypeOnly !== true) found.push(literalText(statement.moduleSpecifier) ?? '');
    else if (ts.isExportDeclaration(statement) && !statement.isTypeOnly && statement.moduleSpecifier !== undefined)
      found.push(literalText(statement.moduleSpecifier) ?? '');
  }
  return [...found, ...dynamicImportsRunBy(source)];
}

/** The file a relative specifier of `file` names, as tsc resolves it (`./x.js` is `./x.ts`), if it exists. */
function resolved(file: string, specifier: string): string | undefined {
  const target = resolve(dirname(file), specifier).replace(/\.js$/, '.ts');
  return existsSync(target) ? target : undefined;
}

/** The specifiers the start hook of the thread entry `source` imports as it runs. */
function loadedByStartHook(source: ts.SourceFile): { file: string; specifier: string }[] {
  const found: { file: string; specifier: string }[] = [];
  for (const hook of startHooks(source)) {
    if (typeof hook !== 'string') {
      for (const specifier of dynamicImportsRunBy(hook)) found.push({ file: source.fileName, specifier });
      continue;
    }
    // Named: declared in the entry, or imported from a module of the project by that name.
    const local = topLevelFunction(source, hook);
    if (local !== undefined) {
      for (const specifier of dynamicImportsRunBy(local)) found.push({ file: source.fileName, specifier });
      continue;
    }
    for (const statement of source.statements) {
      if (!ts.isImportDeclaration(statement)) continue;
      const bindings = statement.importClause?.namedBindings;
      const named = bindings !== undefined && ts.isNamedImports(bindings) && bindings.elements.some((element) => element.name.text === hook);
      const from = literalText(statement.moduleSpecifier) ?? '';
      const target = named && from.startsWith('.') ? resolved(source.fileName, from) : undefined;
      if (target === undefined) continue;
      const declared = topLevelFunction(parse(target), hook);
      if (declared !== undefined) for (const specifier of dynamicImportsRunBy(declared)) found.push({ file: target, specifier });
    }
  }
  return found;
}

/** The packages (bare specifiers, node: builtins left out) loaded at start by the thread running `entry` (a path from the project root, or absolute). */
function packagesLoadedAtStart(entry: string): Set<string> {
  const packages = new Set<string>();
  const seen = new Set<string>();
  const entryFile = resolve(projectPath(''), entry);
  const first = parse(entryFile);
  const queue = [entryFile];
  const follow = (file: string, specifier: string) => {
    if (specifier.startsWith('node:')) return;
    if (!specifier.startsWith('.')) {
      packages.add(specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]!);
      return;
    }
    const target = resolved(file, specifier);
    if (target !== undefined) queue.push(target);
  };
  for (const { file, specifier } of loadedByStartHook(first)) follow(file, specifier);
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    if (seen.has(file)) continue;
    seen.add(file);
    for (const specifier of specifiersLoadedWith(parse(file))) follow(file, specifier);
  }
  return packages;
}

test('the walk sees static imports in either quote style, dynamic imports at the top level and in the start hook, and leaves out type-only and later imports', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'start-imports-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(
    join(dir, 'entry.ts'),
    [
      'import { runActor } from "../worker-entry.js";',
      "import type { Unused } from 'type-only';",
      'import { X509Certificate } from "@peculiar/x509";',
      "export * from './re-exported.js';",
      "await import('undici');",
      "const later = () => import('piscina');",
      'runActor(kind, {',
      '  async start() {',
      '    await import("ws");',
      "    return { api: { later: () => import('ps-list') } };",
      '  },',
      '});',
    ].join('\n'),
  );
  writeFileSync(join(dir, 'named-entry.ts'), "import { startNamed } from './named-start.js';\nrunActor(kind, { start: startNamed });\n");
  writeFileSync(
    join(dir, 'named-start.ts'),
    'export async function startNamed() {\n  await import("acme-client");\n  return { stop: () => import(\'cookie\') };\n}\n',
  );
  writeFileSync(join(dir, 're-exported.ts'), "export { parse } from 'dns-packet';\n");
  t.deepEqual([...packagesLoadedAtStart(join(dir, 'entry.ts'))].sort(), ['@peculiar/x509', 'dns-packet', 'undici', 'ws']);
  t.deepEqual([...packagesLoadedAtStart(join(dir, 'named-entry.ts'))].sort(), ['acme-client']);
});

test('the walk finds what a thread does load at start', (t) => {
  const supervisor = packagesLoadedAtStart('src/cli/run-host.ts');
  t.true(supervisor.has('winston'), 'the supervisor log is loaded with run-host');
  t.true(packagesLoadedAtStart('actors/http-front/index.ts').has('uWebSockets.js'), 'a front loads uWS through src/http');
});

test('the supervisor thread loads piscina with the first job, not at start', (t) => {
  t.false(packagesLoadedAtStart('src/cli/run-host.ts').has('piscina'));
  t.false(packagesLoadedAtStart('actors/registry.ts').has('piscina'));
});

test('the sampler thread loads ps-list (macOS only) when it lists processes there, not at start', (t) => {
  t.false(packagesLoadedAtStart('actors/monitor/sampler/index.ts').has('ps-list'));
});

// Every thread's entry: the executables' main threads, each actor kind's, and the sites a front loads.
const threadEntries = [
  'bin/outpost.ts',
  'bin/certhub.ts',
  'bin/certhub-agent.ts',
  'actors/http-front/index.ts',
  'actors/cert/site/site.ts',
  'actors/qpool/site/site.ts',
  'actors/speedtest/site/site.ts',
  'actors/monitor/site/site.ts',
  'actors/cert/domains/index.ts',
  'actors/cert/dns/index.ts',
  'actors/cert/acme/index.ts',
  'actors/cert/audit/index.ts',
  'actors/monitor/sampler/index.ts',
  'actors/proxy/proxy-front/index.ts',
  'actors/proxy/cert-fetcher/index.ts',
  'actors/qpool/collector/index.ts',
  'actors/qpool/diode-sender/index.ts',
  'actors/qpool/diode-receiver/index.ts',
  'actors/qpool/pool/index.ts',
];

test('no thread loads the X.509 libraries at start, and only the ACME thread loads acme-client (they cost 260 and 370 ms of CPU a thread)', (t) => {
  for (const entry of threadEntries) {
    const packages = packagesLoadedAtStart(entry);
    for (const heavy of ['@peculiar/x509', '@peculiar/asn1-schema', '@peculiar/asn1-x509']) t.false(packages.has(heavy), `${entry} loads ${heavy} at start`);
    if (entry !== 'actors/cert/acme/index.ts') t.false(packages.has('acme-client'), `${entry} loads acme-client at start`);
  }
  t.true(packagesLoadedAtStart('actors/cert/acme/index.ts').has('acme-client'), 'the walk sees the ACME thread load it');
  t.true(packagesLoadedAtStart('actors/cert/domains/demo-certificate.ts').has('@peculiar/x509'), 'the walk sees the module that imports it');
});

test('no thread but the proxy front loads ws, and none loads undici, at start', (t) => {
  for (const entry of threadEntries) {
    const packages = packagesLoadedAtStart(entry);
    t.false(packages.has('undici'), `${entry} loads undici at start`);
    if (entry !== 'actors/proxy/proxy-front/index.ts') t.false(packages.has('ws'), `${entry} loads ws at start`);
  }
});
