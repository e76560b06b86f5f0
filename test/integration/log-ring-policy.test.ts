// The log ring holds every role's records: only an actor whose spec says it reads logs may stream it.
// The fixture front streams the ring as it starts; here its spec does not say so.
import test from 'ava';
import { startFixtureProcess } from '../helpers/fixture-host.js';

test('an actor that does not declare it reads logs is refused the log ring: the refusal is logged and the process stops with exit 1', async (t) => {
  const host = startFixtureProcess(t, { frontsReadLogs: false });
  // A bound on a hang: the refusal comes as the front starts.
  await host.waitFor(/refused a log subscription: actor front \(role fixture\) does not declare that it reads the log ring/, 30_000);
  await host.waitFor(/actor front cannot run: the supervisor refused the log subscription/, 30_000);
  t.is(await host.exited, 1);
});
