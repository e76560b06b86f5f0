// The executables under mutated config files: each refused file makes its program
// exit 2 with the problem named by option path on stderr, never a stack trace; the same mutations
// as test/unit/fuzz-config.test.ts, a few per program (each run starts a process).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import fc from 'fast-check';
import { validateConfig } from '../../src/config/load.js';
import { ConfigError } from '../../src/errors.js';
import { configLoaders, mutate, mutation } from '../helpers/config-mutations.js';
import { fuzzSeed } from '../helpers/fuzz.js';
import { projectPath, runToEnd } from '../helpers/process.js';

/** How each loader's file reaches its program: the file's name in a fresh folder, and the arguments. */
const programs: Record<string, { file: string; args: (dir: string) => string[] }> = {
  'outpost host config': { file: 'host.json', args: (dir) => ['outpost', 'check', '-c', join(dir, 'host.json')] },
  'certhub config.json': { file: 'config.json', args: (dir) => ['certhub', 'run', '-d', dir] },
  'qpool serve file': { file: 'qpool.json', args: (dir) => ['qpool', 'serve', '-c', join(dir, 'qpool.json')] },
  'qpool collect file': { file: 'qpool.json', args: (dir) => ['qpool', 'collect', '-c', join(dir, 'qpool.json')] },
  'certhub-agent proxy file': { file: 'proxy.json', args: (dir) => ['certhub-agent', 'proxy', '-c', join(dir, 'proxy.json')] },
};

const filesPerProgram = 4;

for (const { name, schema, valid } of configLoaders) {
  test(`${name}: a refused mutation exits 2 naming the option path, without a stack trace`, async (t) => {
    const program = programs[name];
    if (program === undefined) throw new Error(`no program reads ${name}`);
    // The first few mutated files the loader refuses, with the problem it names first.
    const refused: { document: unknown; problem: string }[] = [];
    for (const changes of fc.sample(fc.array(mutation, { minLength: 1, maxLength: 3 }), { seed: fuzzSeed, numRuns: 200 })) {
      const document = changes.reduce(mutate, valid);
      try {
        validateConfig(schema, document);
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        refused.push({ document, problem: error.problems[0]?.split('\n')[0] ?? '' });
      }
      if (refused.length === filesPerProgram) break;
    }
    t.is(refused.length, filesPerProgram);
    for (const { document, problem } of refused) {
      const dir = await mkdtemp(join(tmpdir(), 'fuzz-config-cli-'));
      try {
        await writeFile(join(dir, program.file), JSON.stringify(document), { mode: 0o600 });
        const [binary = '', ...args] = program.args(dir);
        const result = await runToEnd(process.execPath, [projectPath(`dist/bin/${binary}.js`), ...args], { APP_POOL_KEY: 'fuzz-config-passphrase' });
        t.is(result.code, 2, `${JSON.stringify(document)}\n${result.stderr}`);
        t.true(result.stderr.includes(problem), `${problem} not in ${result.stderr}`);
        t.notRegex(result.stderr, /\n\s+at /, 'no stack trace');
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    }
  });
}
