// CONTRIBUTING.md's commands: what each does when the documents test runs it (in the package's folder, where a contributor types them).
import type { DocExpectations } from './expectation.js';

export const expectations: DocExpectations = {
  'npm install': {
    notRun: 'installs the packages and builds, which the suite did before it ran; a build meanwhile would rewrite the dist/ the running tests read',
  },
  'npm run build': { notRun: 'rewrites the dist/ that the running tests read; the suite built it before it ran' },
  'npm test': { notRun: 'is the whole suite this test is part of' },
  'npx ava dist/test/qpool/unit/batch.test.js': { exit: 0, prints: /✔ a batch is sent early at maxBatch/, inPackage: true },
  "npx ava dist/test/qpool/unit/batch.test.js --match '*maxBatch*'": { exit: 0, prints: /^\s*1 test passed$/m, inPackage: true },
  'npm test -- dist/test/cert/integration/certhub-demo.test.js': {
    notRun: 'installs the Debian packages and Node.js 22 and 24 as root; the file it runs is in the suite',
  },
  'FUZZ_SEED=7 FUZZ_RUNS=5000 npx ava dist/test/cert/integration/fuzz-certhub.test.js': {
    notRun: 'five thousand fuzzed requests a route take minutes; the suite runs the file with its fixed seed',
  },
  'npm run format': { notRun: 'rewrites the tree in place; npm test checks that it would change nothing (npm run format:check)' },
  'npm run lint': { notRun: 'typed lint of the whole tree takes minutes of CPU; npm test runs it beside the tests' },
  'npm run typecheck': {
    notRun: "type-checks the whole tree and ui/, minutes of CPU on a loaded machine; the build's tsc and npm test's ui/ type-check make the same checks",
  },
  'npx eslint src/errors.ts': { exit: 0, inPackage: true },
  'npm run mutate': { exit: 2, inPackage: true },
  'npm run mutate -- allowed-hosts': {
    notRun: 'takes minutes: one ava run for each of some eighty mutants; it also writes .cache/stryker-tmp and .cache/mutation in the package',
  },
};
