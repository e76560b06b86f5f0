// certhub-agent fetch when the disk refuses the material: every write failure ends
// the run with exit 1 and a message naming the path and the reason, and leaves nothing half-written.
import { mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { certhubDataDir, startCerthub } from '../../helpers/certhub.js';
import { addIssuedDomain, startAgent } from '../../helpers/certhub-agent.js';
import { tempDir } from '../../helpers/qpool.js';

/** A bound on a hang only (Node's recursive mkdir spun forever on /proc): a run takes about a second. */
const hangBoundMs = 60_000;

async function exitWithin(agent: ReturnType<typeof startAgent>): Promise<number | NodeJS.Signals | 'still running'> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<'still running'>((resolve) => (timer = setTimeout(() => resolve('still running'), hangBoundMs)));
  try {
    return await Promise.race([agent.exited, bound]);
  } finally {
    clearTimeout(timer);
  }
}

test('an output folder that cannot be made (/proc/nope, /proc/nope/deeper): exit 1 naming the folder and the reason, no spin', async (t) => {
  const server = await startCerthub(t, await certhubDataDir(t));
  const { name, token } = await addIssuedDomain(server, 'app');
  for (const out of ['/proc/nope', '/proc/nope/deeper']) {
    const agent = startAgent(t, ['fetch', '--allow-untrusted', '-s', server.url, '-t', token, '-d', name, '-o', out]);
    t.is(await exitWithin(agent), 1, `-o ${out}: ${agent.stderr()}`);
    t.regex(agent.stderr(), new RegExp(`app\\.example\\.test: cannot write ${out}/app\\.example\\.test: no such file or directory \\(ENOENT\\)`));
  }
});

test('a file of the set that cannot be replaced (fullchain.pem is a folder): exit 1 naming it, and no other file of the set written', async (t) => {
  const server = await startCerthub(t, await certhubDataDir(t));
  const { name, token } = await addIssuedDomain(server, 'app');
  const out = await tempDir(t, 'agent-');
  await mkdir(join(out, name, 'fullchain.pem'), { recursive: true });

  const agent = startAgent(t, ['fetch', '--allow-untrusted', '-s', server.url, '-t', token, '-d', name, '-o', out]);
  t.is(await exitWithin(agent), 1, agent.stderr());
  t.regex(agent.stderr(), new RegExp(`cannot write ${out}/app\\.example\\.test/fullchain\\.pem: illegal operation on a directory \\(EISDIR\\)`));
  t.deepEqual(await readdir(join(out, name)), ['fullchain.pem'], 'no key, no certificate, no temporary file left');
});
