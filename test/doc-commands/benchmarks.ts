// docs/benchmarks.md's commands: what each does when the documents test runs it (in the package's folder, where a contributor types them).
import type { DocExpectations } from './expectation.js';

const minutes = 'a benchmark takes minutes';

export const expectations: DocExpectations = {
  'npm run bench -- --help': { exit: 0, prints: /benchmark to run: actor-hop[\s\S]*--markdown/, inPackage: true },
  'npm run bench -- actor-hop': { notRun: minutes },
  'npm run bench -- agent-proxy --seconds 4 --rounds 5': { notRun: minutes },
  'npm run bench -- all': { notRun: 'every benchmark: about half an hour' },
  'npm run bench -- all --markdown --write docs/benchmarks.md': {
    notRun:
      "every benchmark, about half an hour, and it rewrites this document's table (test/unit/bench-summary-table.test.ts checks the document and the rewrite)",
  },
  'git worktree add /tmp/before HEAD~1 && (cd /tmp/before && npm ci)': { notRun: 'adds a worktree and installs its packages, for a benchmark' },
  'npm run bench -- qpool-serve --before /tmp/before/dist': { notRun: minutes },
  'npm run soak -- qpool --minutes 10': { notRun: 'a soak takes ten minutes' },
  'MALLOC_ARENA_MAX=2 npm run soak -- proxy --minutes 10': { notRun: 'a soak takes ten minutes' },
};
