// fetch --watch and watchCertificates against a real `certhub run --demo`: refetches on the interval,
// the files left exactly as they were while the server is down or refuses the token, and a clean stop.
import test from 'ava';
import type { CertificateMaterial } from '../../../actors/proxy/client/certificate-answer.js';
import { CertificateFetchError } from '../../../actors/proxy/client/fetch-failure.js';
import { watchCertificates, type WatchEvent } from '../../../actors/proxy/client/watch.js';
import { certhubDataDir, startCerthub } from '../../helpers/certhub.js';
import { addIssuedDomain, materialState, rotateToken, startAgent } from '../../helpers/certhub-agent.js';
import { eventually } from '../../helpers/fixture-host.js';
import { tempDir } from '../../helpers/qpool.js';

function count(text: string, pattern: RegExp): number {
  return [...text.matchAll(new RegExp(pattern.source, 'gm'))].length;
}

test('--watch refetches on its interval; with the server stopped it retries and leaves every file as it was; SIGTERM stops it with exit 0', async (t) => {
  const server = await startCerthub(t, await certhubDataDir(t));
  const { name, token } = await addIssuedDomain(server, 'app');
  const out = await tempDir(t, 'agent-');
  const agent = startAgent(t, ['fetch', '--allow-untrusted', '--watch', '--interval', '1', '-s', server.url, '-t', token, '-d', name, '-o', out]);
  await agent.waitFor(/app\.example\.test: written \(expires/);
  const written = await materialState(out, name);
  await agent.waitFor(/app\.example\.test: unchanged .*next fetch in/);

  server.child.kill('SIGTERM');
  await server.exited;
  const failed = /app\.example\.test: cannot reach .*connection refused.*; files left as they were; retrying in .* \(failure \d+ in a row\)$/;
  t.true(await eventually(() => Promise.resolve(count(agent.stderr(), failed) >= 3), 20_000), `three failed fetches:\n${agent.stderr()}`);
  t.deepEqual(await materialState(out, name), written, 'not a file touched while the server is down');

  agent.child.kill('SIGTERM');
  t.is(await agent.exited, 0);
  t.regex(agent.stdout(), /^stopped$/m);
});

test('watchCertificates: onChange once for new material, unchanged refetches after; a rotated token fails without touching the files; abort ends it', async (t) => {
  const server = await startCerthub(t, await certhubDataDir(t));
  const { name, token } = await addIssuedDomain(server, 'app');
  const out = await tempDir(t, 'agent-');
  const stop = new AbortController();
  const changes: CertificateMaterial[] = [];
  const events: WatchEvent[] = [];
  const watching = watchCertificates({
    targets: [{ servers: [new URL(server.url)], domain: name, token }],
    dir: out,
    intervalMs: 200,
    trust: 'untrusted-allowed',
    signal: stop.signal,
    onChange: (material) => void changes.push(material),
    onEvent: (event) => void events.push(event),
  });
  try {
    t.true(await eventually(() => Promise.resolve(events.filter((event) => event.type === 'unchanged').length >= 2)), JSON.stringify(events));
    t.is(changes.length, 1);
    t.is(changes[0]?.domain, name);
    const written = await materialState(out, name);
    t.is(written.cert.content, changes[0]?.certPem ?? 'no change reported');

    await rotateToken(server, 'app');
    t.true(await eventually(() => Promise.resolve(events.some((event) => event.type === 'failed'))), JSON.stringify(events));
    const failure = events.find((event) => event.type === 'failed');
    t.true(failure?.type === 'failed' && failure.error instanceof CertificateFetchError && failure.error.kind === 'token-refused');
    t.deepEqual(await materialState(out, name), written);
    t.is(changes.length, 1);
  } finally {
    stop.abort();
    await watching;
  }
  const settled = events.length;
  await new Promise((resolve) => setTimeout(resolve, 500));
  t.is(events.length, settled, 'nothing runs after the watch ended');
});
