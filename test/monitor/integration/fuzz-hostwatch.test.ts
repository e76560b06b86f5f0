// hostwatch fuzzed from its own /api/spec (test/helpers/fuzz-run.ts): every answer documented (a
// snapshot that validates against the document's Snapshot schema included), the server up and its
// memory bounded after the run.
import test from 'ava';
import { fuzzOpenApi } from '../../helpers/fuzz-run.js';
import { startHostwatch } from '../../helpers/hostwatch.js';

test('hostwatch: every fuzzed request gets a documented answer, the server stays up, RSS stays bounded', async (t) => {
  const host = await startHostwatch(t);
  const pid = host.child.pid;
  if (pid === undefined) throw new Error('hostwatch has no pid');
  await fuzzOpenApi(t, { url: host.url, pid, cors: true }, { seed: 28_1_2, numRuns: 600, options: { credentials: { none: {} } } });
});
