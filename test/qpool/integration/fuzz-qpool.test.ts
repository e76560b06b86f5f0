// qpool serve fuzzed from its own /api/spec (test/helpers/fuzz-run.ts): every answer documented,
// the server up and its memory bounded after the run. The pool holds values, so the value routes
// answer 200 until it is drained and 503 after, and both answers are checked.
import { randomBytes } from 'node:crypto';
import test from 'ava';
import { DiodeDouble } from '../../helpers/diode-double.js';
import { fuzzOpenApi } from '../../helpers/fuzz-run.js';
import { freeListen, startServe, tempDir, valueLines, waitForStatus, writeConfig } from '../../helpers/qpool.js';

const values = Array.from({ length: 200 }, () => randomBytes(128).toString('hex'));

test('qpool serve: every fuzzed request gets a documented answer, the server stays up, RSS stays bounded', async (t) => {
  const double = await DiodeDouble.create(t);
  t.teardown(() => double.cleanup());
  const dir = await tempDir(t);
  const config = await writeConfig(dir, { server: { listen: await freeListen(), receive_command: double.receiveCommand('auto-stream-recv') } });
  const serve = await startServe(t, config, double.env);
  double.enqueue(valueLines(values));
  await waitForStatus(serve.url, (status) => status.available === values.length);
  const pid = serve.process.child.pid;
  if (pid === undefined) throw new Error('qpool serve has no pid');
  await fuzzOpenApi(t, { url: serve.url, pid, cors: true }, { seed: 28_1_3, numRuns: 600, options: { credentials: { none: {} } } });
});
