// Where certhub run shows its admin key: in full when its stdout is a terminal (here a pseudo-terminal
// made by util-linux `script`), for the person who started it; the non-terminal case, where a unit's
// journal would keep it, is in certhub-demo.test.ts.
import test from 'ava';
import { certhubBin, certhubDataDir, testAdminKey } from '../../helpers/certhub.js';
import { startProcess } from '../../helpers/process.js';

test('certhub run prints the whole admin key when its stdout is a terminal', async (t) => {
  const dataDir = await certhubDataDir(t);
  const command = [process.execPath, certhubBin, 'run', '-d', dataDir, '--demo', '-H', '127.0.0.1', '-p', '0'].map((word) => `'${word}'`).join(' ');
  const terminal = startProcess(t, 'script', ['--quiet', '--return', '--command', `exec ${command}`, '/dev/null']);
  // A bound on a hang: on a loaded machine an actor may be restarted before it is ready.
  const [, shown] = await terminal.waitFor(/^admin key: (\S+)\r?$/m, 60_000);
  t.is(shown, testAdminKey);
  // script ends the program on its terminal when told to end.
  terminal.child.kill('SIGTERM');
  await terminal.exited;
});
