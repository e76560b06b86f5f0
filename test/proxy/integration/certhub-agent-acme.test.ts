// certhub-agent fetch against certhub on the real stack (PowerDNS + Pebble): the files it writes hold
// a chain that openssl verifies against Pebble's root and the key of the leaf; a rotated token and a
// stopped server during --watch leave those files exactly as they were.
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { reservePort } from '../../../src/http/port.js';
import { opensslCheck } from '../../helpers/openssl.js';
import { stopCertStack, startCertStack } from '../../helpers/cert-stack.js';
import { startCerthubOnStack } from '../../helpers/certhub-domains.js';
import { certhubDataDir, startCerthub } from '../../helpers/certhub.js';
import { addIssuedDomain, materialState, rotateToken, runAgent, startAgent } from '../../helpers/certhub-agent.js';
import { eventually } from '../../helpers/fixture-host.js';
import { tempDir } from '../../helpers/qpool.js';

test('a Pebble certificate fetched to disk verifies with openssl; a rotated token and a stopped server leave the files as they were', async (t) => {
  const stack = await startCertStack();
  try {
    const { pebble } = stack;
    const server = await startCerthubOnStack(t, stack);
    const { name, token } = await addIssuedDomain(server, 'app', 60_000);
    const out = await tempDir(t, 'agent-');
    // Pebble's root is this run's own: the agent trusts it as it would a private CA.
    const bundle = join(await tempDir(t, 'agent-ca-'), 'pebble-root.pem');
    await writeFile(bundle, await pebble.root());
    const untrusted = await runAgent(['fetch', '-s', server.url, '-t', token, '-d', name, '-o', out]);
    t.is(untrusted.code, 1);
    t.regex(untrusted.stderr, /does not lead to a trusted root .*--ca-bundle FILE/);
    t.deepEqual(await readdir(out), [], 'material of an unknown CA is not written');

    const fetched = await runAgent(['fetch', '-s', server.url, '-t', token, '-d', name, '-o', out, '--ca-bundle', bundle]);
    t.is(fetched.code, 0, fetched.stderr);
    const written = await materialState(out, name);
    t.not(written.chain.content, '', 'Pebble hands out a chain');
    t.is(written.fullchain.content, `${written.cert.content}${written.chain.content}`);
    const verdict = await opensslCheck({ certPem: written.cert.content, chainPem: written.chain.content, keyPem: written.key.content }, await pebble.root());
    t.regex(verdict.verify, /: OK$/);
    t.true(verdict.keyMatches);

    const newToken = await rotateToken(server, 'app');
    const refused = await runAgent(['fetch', '-s', server.url, '-t', token, '-d', name, '-o', out, '--ca-bundle', bundle]);
    t.is(refused.code, 1);
    t.regex(
      refused.stderr,
      /refused the token for app\.example\.test \(HTTP 401\): this token was replaced \(rotated\) on \d{4}-\d\d-\d\d; give certhub-agent the domain's new token/,
    );
    t.deepEqual(await materialState(out, name), written);

    const agent = startAgent(t, ['fetch', '--watch', '--interval', '1', '-s', server.url, '-t', newToken, '-d', name, '-o', out, '--ca-bundle', bundle]);
    await agent.waitFor(/app\.example\.test: unchanged \(expires/);
    server.child.kill('SIGTERM');
    await server.exited;
    const failures = () => [...agent.stderr().matchAll(/connection refused.*files left as they were/g)].length;
    t.true(await eventually(() => Promise.resolve(failures() >= 2), 20_000), agent.stderr());
    t.deepEqual(await materialState(out, name), written);
    agent.child.kill('SIGINT');
    t.is(await agent.exited, 0);
  } finally {
    await stopCertStack(stack);
  }
});

test("a domain whose certificate cannot be issued (its DNS provider is down): 409 with the server's reason, exit 1, nothing written", async (t) => {
  const stack = await startCertStack();
  try {
    const { pebble } = stack;
    // A port nothing listens on: the records provider refuses every change, so the domain is never issued.
    const deadProvider = `http://127.0.0.1:${await reservePort('127.0.0.1')}`;
    const dataDir = await certhubDataDir(t, {
      dns: { provider: 'powerdns', server_url: deadProvider, api_token: 'unused', zone: 'example.test' },
      acme: { directory_url: pebble.directoryUrl, ca_bundle: pebble.caFile, accept_terms: true },
    });
    const server = await startCerthub(t, dataDir, []);
    const added = await server.admin('api/admin/domains', { method: 'POST', body: { name: 'app', target: '203.0.113.5' } });
    t.is(added.status, 201);
    const { token } = (await added.json()) as { token: string };
    const out = await tempDir(t, 'agent-');
    const result = await runAgent(['fetch', '-s', server.url, '-t', token, '-d', 'app.example.test', '-o', out]);
    t.is(result.code, 1);
    t.regex(
      result.stderr,
      /the certificate of app\.example\.test is not issued yet \(HTTP 409: the certificate of app\.example\.test is not issued yet \(status: \w+/,
    );
    t.deepEqual(await readdir(out), []);
  } finally {
    await stopCertStack(stack);
  }
});
