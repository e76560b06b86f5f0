// `npm run mutate -- MODULE [FILE...]`: mutation testing of one module of test/mutation/modules.ts
// with StrykerJS, or of the given files of it. Of the module's unit test files, only those that import
// a mutated file run: a mutant in code a file does not load cannot make it fail. Stryker copies the sources into a sandbox under .cache/stryker-tmp/, writes every mutant of the
// module into them at once (mutant schemata: each mutant switched on by `__STRYKER_ACTIVE_MUTANT__`),
// builds once (build.ts), then runs the module's unit test files with ava once per mutant, through its
// command runner (Stryker has no ava runner). A mutant is killed when a test fails. The reports go to
// .cache/mutation/MODULE.html and .json; the run exits 1 when the module scores below `aim`.
import { Stryker } from '@stryker-mutator/core';
import { build } from 'esbuild';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { mutationModules, type MutationModule } from './modules.js';

/** The share of mutants (killed or timed out, of those that ran) a module is held to, in per cent. */
const aim = 80;

const root = fileURLToPath(new URL('../../../', import.meta.url));

function usage(problem: string): never {
  const width = Math.max(...Object.keys(mutationModules).map((name) => name.length));
  const lines = Object.entries(mutationModules).map(([name, module]) => `  ${name.padEnd(width)}  ${module.covers}`);
  console.error(`${problem}\nusage: npm run mutate -- MODULE [FILE...]\nmodules:\n${lines.join('\n')}`);
  process.exit(2);
}

/** The file a mutate entry names: `a.ts:45-90` is `a.ts`; `dir/*.ts` is a pattern. */
function fileMatcher(entry: string): RegExp {
  const file = entry.replace(/:[\d:-]+$/, '');
  return new RegExp(`^${file.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}$`);
}

/** Those of `tests` (compiled paths) whose sources import a file that `mutate` names. */
async function testsImporting(tests: readonly string[], mutate: readonly string[]): Promise<string[]> {
  const matchers = mutate.map(fileMatcher);
  const kept: string[] = [];
  for (const test of tests) {
    const source = test.replace(/^dist\//, '').replace(/\.js$/, '.ts');
    const { metafile } = await build({
      entryPoints: [source],
      bundle: true,
      write: false,
      metafile: true,
      platform: 'node',
      format: 'esm',
      packages: 'external',
      outdir: 'dist',
      absWorkingDir: root,
      logLevel: 'error',
    });
    if (Object.keys(metafile.inputs).some((input) => matchers.some((matcher) => matcher.test(input)))) kept.push(test);
  }
  return kept;
}

async function mutate(name: string, module: MutationModule, files: readonly string[]): Promise<number> {
  const reports = `${root}.cache/mutation`;
  mkdirSync(reports, { recursive: true });
  const entries = files.length === 0 ? module.mutate : module.mutate.filter((entry) => files.some((file) => fileMatcher(entry).test(file)));
  if (entries.length === 0) usage(`mutate: ${name} mutates none of ${files.join(', ')}; it mutates ${module.mutate.join(', ')}`);
  const tests = (await testsImporting(module.tests, entries)).join(' ');
  if (tests === '') usage(`mutate: none of ${name}'s test files imports ${entries.join(', ')}`);
  const started = Date.now();
  const results = await new Stryker({
    testRunner: 'command',
    // --fail-fast: one failing test kills the mutant; the files after it need not run. ava is named by
    // its path in the package root: Stryker links a node_modules folder into the sandbox, but not a
    // node_modules that is itself a link (as in a git worktree that shares another checkout's).
    commandRunner: { command: `node ${root}node_modules/ava/entrypoints/cli.mjs --fail-fast ${tests}` },
    buildCommand: `node ${root}dist/test/mutation/build.js ${tests}`,
    coverageAnalysis: 'off',
    // A mutant that makes a test loop forever is killed by the timeout: the run without mutants took
    // T, a mutant may take 2 T + 20 s. The margin is wide because a shared machine's load stretches a
    // run of a few seconds several times over, and a run cut short by load would count as killed.
    timeoutFactor: 2,
    timeoutMS: 20_000,
    mutate: [...entries],
    // The sandbox holds the sources, the package files and benchmarks/ (tests start Pebble and OpenSSL through its third-party/); the build writes its dist/ there.
    ignorePatterns: ['/*', '!/src', '!/actors', '!/test', '!/benchmarks', '!/package.json', '!/tsconfig.json'],
    tempDirName: '.cache/stryker-tmp',
    cleanTempDir: true,
    // Two mutants at a time, each running its ava files one after the other: the suite's two cores.
    concurrency: 2,
    reporters: ['clear-text', 'progress-append-only', 'html', 'json'],
    clearTextReporter: { allowColor: false, allowEmojis: false, logTests: false },
    htmlReporter: { fileName: `${reports}/${name}.html` },
    jsonReporter: { fileName: `${reports}/${name}.json` },
    thresholds: { high: 90, low: aim, break: null },
  }).runMutationTest();
  const detected = results.filter((result) => result.status === 'Killed' || result.status === 'Timeout').length;
  const undetected = results.filter((result) => result.status === 'Survived' || result.status === 'NoCoverage').length;
  const score = detected + undetected === 0 ? 100 : (100 * detected) / (detected + undetected);
  const seconds = Math.round((Date.now() - started) / 1000);
  console.log(`mutate ${name}: ${detected} of ${detected + undetected} mutants killed (${score.toFixed(1)}%) in ${seconds} s; aim ${aim}%`);
  return score;
}

const name = process.argv[2];
if (name === undefined) usage('mutate: name the module to mutate');
const module = mutationModules[name];
if (module === undefined) usage(`mutate: no module named ${name}`);
process.exitCode = (await mutate(name, module, process.argv.slice(3))) < aim ? 1 : 0;
