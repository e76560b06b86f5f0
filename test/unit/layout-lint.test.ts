// The layout rule (eslint.layout.js) run on files that break it: src/ importing a role, and a role
// reaching into another role past its index.ts. The repository's own lint run shows it passes today.
import test from 'ava';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { fileURLToPath } from 'node:url';
// @ts-expect-error: a plain JavaScript module beside eslint.config.js, with no type declarations
import { layoutConfig } from '../../../eslint.layout.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const eslint = new ESLint({ cwd: root, overrideConfigFile: true, overrideConfig: [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser } }, layoutConfig as object] });

async function problems(file: string, text: string): Promise<string[]> {
  const [result] = await eslint.lintText(text, { filePath: `${root}${file}` });
  return (result?.messages ?? []).map((message) => message.message);
}

test('src/ importing a role is an error', async (t) => {
  const found = await problems('src/http/example.ts', "import { roles } from '../../actors/registry.js';\nimport { certRole } from '../../actors/cert/index.js';\nexport const all = [roles, certRole];\n");
  t.is(found.length, 2);
  t.regex(found[0] ?? '', /^src\/ is shared mechanism and imports no role: src\/http\/example\.ts imports actors\/registry\.js/);
});

test("a role reaching past another role's index.ts is an error; through it, or inside itself, is not", async (t) => {
  t.deepEqual(await problems('actors/proxy/client/example.ts', "import type { DomainView } from '../../cert/domains/protocol.js';\nexport type X = DomainView;\n"), [
    'a role imports another role only through its index.ts: actors/proxy/client/example.ts imports actors/cert/domains/protocol.js (use actors/cert/index.js)',
  ]);
  t.deepEqual(await problems('actors/proxy/client/example.ts', "import type { CertificateResponse } from '../../cert/index.js';\nimport { proxyRole } from '../role.js';\nexport const y: CertificateResponse | typeof proxyRole | undefined = undefined;\n"), []);
});

test('export-from and dynamic import are checked like import', async (t) => {
  const found = await problems('src/config/example.ts', "export { certRole } from '../../actors/cert/index.js';\nexport const load = () => import('../../actors/qpool/index.js');\n");
  t.is(found.length, 2);
});

test('the reference docs generator, a build step, reads inside every role; no other module beside the registry does', async (t) => {
  const source = "import { certhubProgram } from './cert/cli/program.js';\nexport const program = certhubProgram;\n";
  t.deepEqual(await problems('actors/reference-docs.ts', source), []);
  t.is((await problems('actors/example.ts', source)).length, 1);
  t.is((await problems('src/build/example.ts', "import { certhubProgram } from '../../actors/cert/cli/program.js';\nexport const program = certhubProgram;\n")).length, 1);
});
