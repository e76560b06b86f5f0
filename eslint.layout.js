// The layout rule (ARCHITECTURE.md, "Invariants"), over every .ts file of the repository.
//
// What it reads: every reference from one file to another: import, export-from, import(), `import x =
// require()`, `typeof import()` types, and `new URL('<path>', import.meta.url)` (how a declaration names
// a thread entry or a site module). A specifier is a path relative to the file ('../../actors/cert/x.js'),
// an absolute path or file: URL, or a bare path that starts with a top-level folder ('actors/cert/x.js'),
// taken from the repository root; `new URL('<path>', <other base>)` is read when its path is such a bare
// one. Packages ('zod', 'node:fs') are not the rule's business. A path under dist/ names the source it
// is compiled from. Paths are resolved against the folder of this file, the repository root, never the
// working directory, so ESLint gives the same answer wherever it runs.
//
// A role's public entries are files at the top of its folder, actors/<role>/:
//   index.ts    what other roles and the list of roles use: its RoleDefinition(s) and shared types
//   cli.ts      its executables' programs, which load the role's code only when a command runs it
//   browser.ts  what its pages share: types, and pure functions that run in a browser
//               (ui/tsconfig.json compiles every browser.ts for the browser: DOM, no Node types)
//
// Who may import what under actors/:
//   src/                mechanism two or more roles use: nothing under actors/
//   actors/<role>/      its own folder; another role through index.ts; actors/http-front/
//   actors/registry.ts  each role's index.ts (it is the list of roles `outpost` runs)
//   actors/http-front/  the generic front thread: nothing of a role (it loads sites by their URL at run time)
//   bin/<exe>.ts        a role through its cli.ts; bin/outpost.ts the list of roles, actors/registry.ts
//   actors/<role>/ui/   the role's page (bundled for the browser): its own files, and any role only
//                       through its browser.ts (its own role's too: the rest of the folder is Node code);
//                       no other file imports a page's files (test/ excepted)
//   ui/                 what the pages share: a role only through its browser.ts; only pages import it
//   test/, benchmarks/  any file: they are white-box. Unit tests test a role's pure modules directly
//                       (logic.ts without threads), helpers build the pieces integration tests start (a
//                       domain book with a fake issuer, a pool's files), and a benchmark times one hot path
//                       without the threads around it; routing them through the public entries would
//                       widen those entries with code only tests use.
// And across the trees, for modules (a script such as test/system-deps.sh is a file any tree may run):
// only test/ imports test/; only test/ and benchmarks/ import benchmarks/ (the tests start the same
// third-party servers the benchmarks measure against).
import { fileURLToPath } from 'node:url';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';

/** The repository root: the folder of this file, whatever the working directory. */
const root = import.meta.dirname;

/** Top-level folders a bare specifier may start with to name a file of the repository. */
const topFolders = new Set(['actors', 'benchmarks', 'bin', 'src', 'test', 'ui']);

/** The public entry each tree imports a role through. */
const entryFor = { actors: 'index', bin: 'cli', ui: 'browser' };

/** Folders under actors/ that are not roles. */
const frontFolder = 'http-front';
const registryFile = 'registry';

/**
 * The build step that writes docs/reference/ from every role's schemas, programs and OpenAPI
 * documents, beside the list of roles: it runs at build time only, and nothing imports it.
 */
const readsEveryRole = new Set(['actors/reference-docs.ts']);

/** A file name without its script extension. */
const stem = (name) => name.replace(/\.(?:[cm]?[jt]s|tsx)$/, '');

/** A repository path as a/b/c, relative to the root, or undefined outside the repository. */
function repositoryPath(path) {
  const inside = relative(root, path);
  if (inside === '' || inside.startsWith('..') || isAbsolute(inside)) return undefined;
  const to = inside.split(sep).join('/');
  return to.startsWith('dist/') ? to.slice('dist/'.length) : to;
}

/**
 * The repository path `specifier` names from `file`, or undefined for a package or a path outside the
 * repository. With `relativeToFile` false (a URL on another base), only a bare top-level path counts.
 */
export function target(file, specifier, relativeToFile = true) {
  if (topFolders.has(specifier.split('/')[0])) return repositoryPath(join(root, specifier));
  if (!relativeToFile) return undefined;
  if (specifier.startsWith('file:')) {
    try {
      return repositoryPath(fileURLToPath(specifier));
    } catch {
      return undefined;
    }
  }
  if (specifier.startsWith('/')) return repositoryPath(specifier);
  if (specifier.startsWith('.')) return repositoryPath(join(dirname(file), specifier));
  return undefined;
}

/** The role whose page (actors/<role>/ui/) holds a repository path, or undefined. */
function pageOf(path) {
  const [top, role, folder] = path.split('/');
  return top === 'actors' && folder === 'ui' ? role : undefined;
}

/** Which kind of thing under actors/ a path names: the registry, the front, or a role and its entry. */
function actorsTarget(to) {
  const [, folder, ...rest] = to.split('/');
  if (rest.length === 0 && stem(folder) === registryFile) return { kind: 'registry' };
  if (folder === frontFolder) return { kind: 'front' };
  const entry = rest.length === 0 ? 'index' : rest.length === 1 ? stem(rest[0]) : undefined;
  return { kind: 'role', role: folder, entry };
}

/** The message for `from` referring to `to` (both repository paths), or undefined when the layout allows it. */
export function check(from, to) {
  if (readsEveryRole.has(from)) return undefined;
  const [fromTop, fromFolder] = from.split('/');
  const [toTop] = to.split('/');
  const isModule = stem(to) !== to;
  if (isModule && toTop === 'test' && fromTop !== 'test') return `only test/ imports test/: ${from} imports ${to}`;
  const fromPage = pageOf(from);
  const toPage = pageOf(to);
  if (isModule && toTop === 'ui' && fromPage === undefined && fromTop !== 'ui' && fromTop !== 'test')
    return `only pages import ui/, what the pages share: ${from} imports ${to}`;
  if (toPage !== undefined && fromTop !== 'test' && fromPage !== toPage)
    return `a page's files are bundled for the browser, and only the page imports them: ${from} imports ${to}`;
  if (fromPage !== undefined && toTop === 'actors' && toPage === undefined) {
    const aim = actorsTarget(to);
    if (aim.kind === 'role' && aim.entry === 'browser') return undefined;
    const use = aim.kind === 'role' ? ` (use actors/${aim.role}/browser.js)` : '';
    return `a page imports a role only through its browser.ts: ${from} imports ${to}${use}`;
  }
  if (isModule && toTop === 'benchmarks' && fromTop !== 'test' && fromTop !== 'benchmarks')
    return `only test/ and benchmarks/ import benchmarks/: ${from} imports ${to}`;
  if (toTop !== 'actors' || fromTop === 'test' || fromTop === 'benchmarks') return undefined;
  const aim = actorsTarget(to);
  if (fromTop === 'src') return `src/ is shared mechanism and imports nothing under actors/: ${from} imports ${to}`;
  if (fromTop === 'actors' && fromFolder === frontFolder) {
    return aim.kind === 'front' ? undefined : `actors/http-front/ is the generic front and imports no role: ${from} imports ${to}`;
  }
  if (aim.kind === 'registry') {
    return fromTop === 'bin' ? undefined : `only bin/ and the tests import the list of roles: ${from} imports ${to}`;
  }
  if (aim.kind === 'front') {
    return fromTop === 'actors' ? undefined : `only actors/ imports actors/http-front/: ${from} imports ${to}`;
  }
  if (fromTop === 'actors' && aim.role === fromFolder) return undefined;
  const entry = entryFor[fromTop];
  if (entry === undefined) return `a file outside src/, actors/, bin/, ui/, test/ and benchmarks/ imports no role: ${from} imports ${to}`;
  if (aim.entry === entry) return undefined;
  const who = fromTop === 'actors' ? 'a role imports another role' : `${fromTop}/ imports a role`;
  return `${who} only through its ${entry}.ts: ${from} imports ${to} (use actors/${aim.role}/${entry}.js)`;
}

/** `import.meta.url`, the base that makes a URL's path relative to the file. */
const isImportMetaUrl = (node) =>
  node?.type === 'MemberExpression' &&
  node.object.type === 'MetaProperty' &&
  node.object.meta.name === 'import' &&
  node.object.property.name === 'meta' &&
  node.property.type === 'Identifier' &&
  node.property.name === 'url';

/** The text of a string literal or of a template literal without expressions. */
function literalText(node) {
  if (node?.type === 'Literal' && typeof node.value === 'string') return node.value;
  if (node?.type === 'TemplateLiteral' && node.expressions.length === 0) return node.quasis[0]?.value.cooked ?? undefined;
  return undefined;
}

export const layoutPlugin = {
  rules: {
    imports: {
      meta: { type: 'problem', schema: [], docs: { description: 'the layout of ARCHITECTURE.md: who may import what under actors/, test/ and benchmarks/' } },
      create(context) {
        const file = context.filename;
        const from = isAbsolute(file) ? repositoryPath(file) : undefined;
        if (from === undefined) return {};
        const report = (node, relativeToFile = true) => {
          const text = literalText(node);
          if (text === undefined) return;
          const to = target(file, text, relativeToFile);
          if (to === undefined) return;
          const message = check(from, to);
          if (message !== undefined) context.report({ node, message });
        };
        const reportSource = (node) => report(node.source);
        return {
          ImportDeclaration: reportSource,
          ExportNamedDeclaration: reportSource,
          ExportAllDeclaration: reportSource,
          ImportExpression: reportSource,
          TSExternalModuleReference: (node) => report(node.expression),
          TSImportType: (node) => report(node.argument?.type === 'TSLiteralType' ? node.argument.literal : node.argument),
          NewExpression(node) {
            if (node.callee.type !== 'Identifier' || node.callee.name !== 'URL' || node.arguments.length < 2) return;
            report(node.arguments[0], isImportMetaUrl(node.arguments[1]));
          },
          CallExpression(node) {
            // import.meta.resolve('<path>')
            const callee = node.callee;
            if (
              callee.type === 'MemberExpression' &&
              callee.object.type === 'MetaProperty' &&
              callee.property.type === 'Identifier' &&
              callee.property.name === 'resolve'
            )
              report(node.arguments[0]);
          },
        };
      },
    },
  },
};

/** The flat-config block that turns the rule on. */
export const layoutConfig = { files: ['**/*.ts'], plugins: { layout: layoutPlugin }, rules: { 'layout/imports': 'error' } };
