// The layout rule (eslint.layout.js) run on files that break it, one per tree and per way of naming a
// file: src/ reaching a role, a role past another role's index.ts, bin/ past a role's cli.ts, ui/ past
// its browser.ts, production code reaching test/ or benchmarks/, by import, export-from, import(),
// `new URL(..., import.meta.url)`, a bare 'actors/...' path or an absolute one, and from working
// directories inside the repository. The repository's own lint run (`npm run lint`) shows it passes.
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import test from 'ava';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
// @ts-expect-error: a plain JavaScript module beside eslint.config.js, with no type declarations
import { layoutConfig } from '../../../eslint.layout.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));

/** An ESLint with the layout rule alone, started in `cwd` (a folder of the repository). */
function eslintIn(cwd: string): ESLint {
  return new ESLint({
    cwd,
    overrideConfigFile: true,
    overrideConfig: [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser } }, layoutConfig as object],
  });
}

const atRoot = eslintIn(root);

/** The layout problems of `text` as the file `file` (a repository path), linted from `eslint`'s folder. */
async function problems(file: string, text: string, eslint = atRoot): Promise<string[]> {
  const [result] = await eslint.lintText(text, { filePath: join(root, file) });
  return (result?.messages ?? []).map((message) =>
    message.ruleId === 'layout/imports' ? message.message : `${message.ruleId ?? 'parse'}: ${message.message}`,
  );
}

test('src/ importing a role, or anything under actors/, is an error', async (t) => {
  const found = await problems(
    'src/http/example.ts',
    "import { roles } from '../../actors/registry.js';\nimport { certRole } from '../../actors/cert/index.js';\nexport const all = [roles, certRole];\n",
  );
  t.deepEqual(found, [
    'src/ is shared mechanism and imports nothing under actors/: src/http/example.ts imports actors/registry.js',
    'src/ is shared mechanism and imports nothing under actors/: src/http/example.ts imports actors/cert/index.js',
  ]);
});

test("a role reaching past another role's index.ts is an error; through it, or inside itself, is not", async (t) => {
  t.deepEqual(
    await problems('actors/proxy/client/example.ts', "import type { DomainView } from '../../cert/domains/protocol.js';\nexport type X = DomainView;\n"),
    [
      'a role imports another role only through its index.ts: actors/proxy/client/example.ts imports actors/cert/domains/protocol.js (use actors/cert/index.js)',
    ],
  );
  t.deepEqual(
    await problems(
      'actors/proxy/client/example.ts',
      "import type { CertificateResponse } from '../../cert/index.js';\nimport { proxyRole } from '../role.js';\nexport const y: CertificateResponse | typeof proxyRole | undefined = undefined;\n",
    ),
    [],
  );
});

test("a role does not import the list of roles, nor another role's cli.ts or browser.ts", async (t) => {
  const found = await problems(
    'actors/proxy/role-example.ts',
    "import { roles } from '../registry.js';\nimport { certhubProgram } from '../cert/cli.js';\nimport type { DomainView } from '../cert/browser.js';\nexport const all: [unknown, unknown, DomainView?] = [roles, certhubProgram];\n",
  );
  t.deepEqual(found, [
    'only bin/ and the tests import the list of roles: actors/proxy/role-example.ts imports actors/registry.js',
    'a role imports another role only through its index.ts: actors/proxy/role-example.ts imports actors/cert/cli.js (use actors/cert/index.js)',
    'a role imports another role only through its index.ts: actors/proxy/role-example.ts imports actors/cert/browser.js (use actors/cert/index.js)',
  ]);
});

test('the generic front thread imports no role, and src/ does not name it', async (t) => {
  t.deepEqual(await problems('actors/http-front/example.ts', "import { certRole } from '../cert/index.js';\nexport const role = certRole;\n"), [
    'actors/http-front/ is the generic front and imports no role: actors/http-front/example.ts imports actors/cert/index.js',
  ]);
  t.deepEqual(await problems('src/http/example.ts', "export const entry = new URL('../../actors/http-front/index.js', import.meta.url);\n"), [
    'src/ is shared mechanism and imports nothing under actors/: src/http/example.ts imports actors/http-front/index.js',
  ]);
});

test("bin/ imports a role only through its cli.ts, and outpost's list of roles", async (t) => {
  t.deepEqual(
    await problems(
      'bin/example.ts',
      "import { certhubProgram } from '../actors/cert/cli/program.js';\nimport { certRole } from '../actors/cert/index.js';\nexport const all = [certhubProgram, certRole];\n",
    ),
    [
      'bin/ imports a role only through its cli.ts: bin/example.ts imports actors/cert/cli/program.js (use actors/cert/cli.js)',
      'bin/ imports a role only through its cli.ts: bin/example.ts imports actors/cert/index.js (use actors/cert/cli.js)',
    ],
  );
  t.deepEqual(
    await problems(
      'bin/example.ts',
      "import { certhubProgram } from '../actors/cert/cli.js';\nimport { roles } from '../actors/registry.js';\nimport { runProgram } from '../src/cli/program.js';\nexport const all = [certhubProgram, roles, runProgram];\n",
    ),
    [],
  );
});

test('a page imports a role only through its browser.ts, its own role too', async (t) => {
  const source =
    "import { missingName } from '../domains/input-words.js';\nimport type { ProxyRoutesExport } from '../../proxy/agent-exports.js';\nexport const x: [string, ProxyRoutesExport?] = [missingName];\n";
  t.deepEqual(await problems('actors/cert/ui/example.ts', source), [
    'a page imports a role only through its browser.ts: actors/cert/ui/example.ts imports actors/cert/domains/input-words.js (use actors/cert/browser.js)',
    'a page imports a role only through its browser.ts: actors/cert/ui/example.ts imports actors/proxy/agent-exports.js (use actors/proxy/browser.js)',
  ]);
  t.deepEqual(
    await problems(
      'actors/cert/ui/example.ts',
      "import { missingName, type DomainView } from '../browser.js';\nimport type { ProxyRoutesExport } from '../../proxy/browser.js';\nimport { byId } from '../../../ui/common/dom.js';\nimport { rowOf } from './row.js';\nimport { shellQuote } from '../../../src/cli/shell-quote.js';\nexport const x: [string, unknown, unknown, unknown, DomainView?, ProxyRoutesExport?] = [missingName, byId, rowOf, shellQuote];\n",
    ),
    [],
  );
  t.is((await problems('actors/cert/ui/example.ts', "import { roles } from '../../registry.js';\nexport const x = roles;\n")).length, 1);
  t.deepEqual(await problems('ui/common/example.ts', "import { summaryOf } from '../../actors/cert/domains/summary.js';\nexport const s = summaryOf;\n"), [
    'ui/ imports a role only through its browser.ts: ui/common/example.ts imports actors/cert/domains/summary.js (use actors/cert/browser.js)',
  ]);
});

test("a page's files are imported by that page alone, and ui/ by the pages alone", async (t) => {
  t.deepEqual(await problems('actors/cert/site/example.ts', "import { rowOf } from '../ui/row.js';\nexport const x = rowOf;\n"), [
    "a page's files are bundled for the browser, and only the page imports them: actors/cert/site/example.ts imports actors/cert/ui/row.js",
  ]);
  t.deepEqual(await problems('actors/qpool/ui/example.ts', "import { rowOf } from '../../cert/ui/row.js';\nexport const x = rowOf;\n"), [
    "a page's files are bundled for the browser, and only the page imports them: actors/qpool/ui/example.ts imports actors/cert/ui/row.js",
  ]);
  t.deepEqual(await problems('src/http/example.ts', "import { byId } from '../../ui/common/dom.js';\nexport const x = byId;\n"), [
    'only pages import ui/, what the pages share: src/http/example.ts imports ui/common/dom.js',
  ]);
  t.deepEqual(await problems('test/helpers/example.ts', "import { rowOf } from '../../actors/cert/ui/row.js';\nexport const x = rowOf;\n"), []);
});

test('test/ and benchmarks/ reach any file of a role; only test/ imports test/, only they import benchmarks/', async (t) => {
  const internals =
    "import { PoolService } from '../../actors/qpool/pool/logic.js';\nimport { DomainBook } from '../../actors/cert/domains/book.js';\nexport const all = [PoolService, DomainBook];\n";
  t.deepEqual(await problems('test/helpers/example.ts', internals), []);
  t.deepEqual(await problems('benchmarks/qpool-serve/example.ts', internals), []);
  t.deepEqual(
    await problems('test/helpers/example.ts', "import { startPebble } from '../../benchmarks/third-party/pebble.js';\nexport const start = startPebble;\n"),
    [],
  );
  t.deepEqual(await problems('benchmarks/example.ts', "import { startCerthub } from '../test/helpers/certhub.js';\nexport const start = startCerthub;\n"), [
    'only test/ imports test/: benchmarks/example.ts imports test/helpers/certhub.js',
  ]);
  t.deepEqual(
    await problems(
      'actors/cert/example.ts',
      "import { startPebble } from '../../benchmarks/third-party/pebble.js';\nimport { startCerthub } from '../../test/helpers/certhub.js';\nexport const all = [startPebble, startCerthub];\n",
    ),
    [
      'only test/ and benchmarks/ import benchmarks/: actors/cert/example.ts imports benchmarks/third-party/pebble.js',
      'only test/ imports test/: actors/cert/example.ts imports test/helpers/certhub.js',
    ],
  );
  t.deepEqual(
    await problems('benchmarks/example.ts', "export const script = new URL('../test/system-deps.sh', import.meta.url);\n"),
    [],
    'a script is a file to run, not a module',
  );
});

test('export-from and dynamic import are checked like import', async (t) => {
  const found = await problems(
    'src/config/example.ts',
    "export { certRole } from '../../actors/cert/index.js';\nexport const load = () => import('../../actors/qpool/index.js');\n",
  );
  t.is(found.length, 2);
});

test('a file named by new URL(..., import.meta.url) is checked like an import; so is a bare path on another base', async (t) => {
  t.deepEqual(
    await problems(
      'src/http/example.ts',
      "export const entry = new URL('../../actors/cert/domains/index.js', import.meta.url);\nexport const front = new URL(`../../dist/actors/qpool/pool/index.js`, import.meta.url);\n",
    ),
    [
      'src/ is shared mechanism and imports nothing under actors/: src/http/example.ts imports actors/cert/domains/index.js',
      'src/ is shared mechanism and imports nothing under actors/: src/http/example.ts imports actors/qpool/pool/index.js',
    ],
  );
  t.deepEqual(
    await problems(
      'actors/proxy/example.ts',
      "export const entry = new URL('../cert/acme/index.js', import.meta.url);\nexport const own = new URL('./proxy-front/index.js', import.meta.url);\n",
    ),
    ['a role imports another role only through its index.ts: actors/proxy/example.ts imports actors/cert/acme/index.js (use actors/cert/index.js)'],
  );
  t.deepEqual(
    await problems(
      'src/cli/example.ts',
      "import { packageRoot } from '../version.js';\nexport const help = new URL('actors/cert/site/help.md', packageRoot);\nexport const license = new URL('LICENSE', packageRoot);\n",
    ),
    ['src/ is shared mechanism and imports nothing under actors/: src/cli/example.ts imports actors/cert/site/help.md'],
  );
});

test('a bare actors/... specifier, an absolute path and a file: URL are checked like a relative one', async (t) => {
  const absolute = join(root, 'actors/cert/domains/names.js');
  const found = await problems(
    'src/net/example.ts',
    `import { a } from 'actors/cert/domains/names.js';\nimport { b } from '${absolute}';\nimport { c } from '${pathToFileURL(absolute).href}';\nimport { z } from 'zod';\nexport const all = [a, b, c, z];\n`,
  );
  t.deepEqual(found, Array(3).fill('src/ is shared mechanism and imports nothing under actors/: src/net/example.ts imports actors/cert/domains/names.js'));
  t.is((await problems('actors/qpool/ui/example.ts', "import { summaryOf } from 'actors/cert/domains/summary.js';\nexport const s = summaryOf;\n")).length, 1);
});

test('the answer is the same from any working directory inside the repository', async (t) => {
  const cases: [string, string][] = [
    [
      'src/http/example.ts',
      "import { certRole } from '../../actors/cert/index.js';\nexport const entry = [certRole, new URL('../../actors/cert/domains/index.js', import.meta.url)];\n",
    ],
    ['actors/proxy/client/example.ts', "import type { DomainView } from '../../cert/domains/protocol.js';\nexport type X = DomainView;\n"],
    ['actors/proxy/client/example.ts', "import { proxyRole } from '../role.js';\nexport const role = proxyRole;\n"],
  ];
  for (const folder of ['src', 'actors/proxy', 'actors']) {
    const eslint = eslintIn(join(root, folder));
    for (const [file, text] of cases) {
      if (!file.startsWith(`${folder}/`)) continue;
      const expected = await problems(file, text);
      t.deepEqual(await problems(file, text, eslint), expected, `${file} linted from ${folder}/`);
    }
  }
  t.is((await problems('src/http/example.ts', cases[0]![1], eslintIn(join(root, 'src')))).length, 2);
});

test('the reference docs generator, a build step, reads inside every role; no other module beside the registry does', async (t) => {
  const source = "import { certhubProgram } from './cert/cli/program.js';\nexport const program = certhubProgram;\n";
  t.deepEqual(await problems('actors/reference-docs.ts', source), []);
  t.is((await problems('actors/example.ts', source)).length, 1);
  t.is(
    (await problems('src/build/example.ts', "import { certhubProgram } from '../../actors/cert/cli/program.js';\nexport const program = certhubProgram;\n"))
      .length,
    1,
  );
});
