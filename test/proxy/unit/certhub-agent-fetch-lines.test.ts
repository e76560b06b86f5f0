// certhub-agent's own words: what a SIGHUP changed (never a token), what the proxy's fronts did with
// new material, and a reload command's exit code and last lines.
import { rootCertificates } from 'node:tls';
import test from 'ava';
import { trustAnchors } from '../../../actors/proxy/client/material-trust.js';
import { settingsChanges } from '../../../actors/proxy/cli/fetch-watch.js';
import type { FetchSettings } from '../../../actors/proxy/cli/fetch-run.js';
import { frontsReloadLine } from '../../../actors/proxy/cert-fetcher/fetch-lines.js';
import { reloadSuccessLine, runReloadCommand } from '../../../actors/proxy/client/reload-hook.js';

function settings(targets: { domain: string; token: string; server?: string; combinedPem?: boolean }[], ca?: string): FetchSettings {
  return {
    targets: targets.map(({ domain, token, server, combinedPem }) => ({
      domain,
      token,
      servers: [new URL(server ?? 'https://certhub.example.test')],
      ...(combinedPem === undefined ? {} : { combinedPem }),
    })),
    dir: 'certs',
    trust: 'untrusted-allowed',
    timeoutMs: 30_000,
    intervalMs: 3_600_000,
    ...(ca === undefined ? {} : { ca }),
    output: { pem: true },
  };
}

test('a SIGHUP names what changed: a token (not shown), a server, domains added and removed, combined_pem, the CA, the PKCS#12 password (not shown); nothing when nothing did', (t) => {
  const running = settings([
    { domain: 'app.example.test', token: 'chd_old' },
    { domain: 'gone.example.test', token: 'chd_gone' },
  ]);
  const read = settings(
    [
      { domain: 'app.example.test', token: 'chd_new', server: 'https://other.example.test', combinedPem: true },
      { domain: 'new.example.test', token: 'chd_x' },
    ],
    'PEM',
  );
  const changes = settingsChanges(running, read);
  t.deepEqual(changes, [
    'token of app.example.test changed',
    'server of app.example.test now https://other.example.test',
    'combined_pem of app.example.test now true',
    'domain new.example.test added',
    'domain gone.example.test removed (its files are left in place)',
    '--ca file changed',
  ]);
  t.false(changes.join(' ').includes('chd_'), 'no token in the log');
  t.deepEqual(
    settingsChanges(
      running,
      settings([
        { domain: 'app.example.test', token: 'chd_old' },
        { domain: 'gone.example.test', token: 'chd_gone' },
      ]),
    ),
    [],
  );
  // Any CA certificate will do as a bundle's: one of the system's roots.
  const bundle = { ...running, trust: trustAnchors(rootCertificates[0]) };
  t.deepEqual(settingsChanges(running, bundle), ['--ca-bundle file changed']);
  t.deepEqual(settingsChanges(bundle, { ...bundle, trust: trustAnchors(rootCertificates[0]) }), [], 'the same bundle read again');
  const p12 = { ...running, output: { pem: true, p12: { password: 'first secret', legacy: false } } };
  const changed = settingsChanges(p12, { ...p12, output: { pem: true, p12: { password: 'second secret', legacy: false } } });
  t.deepEqual(changed, ['--p12-password-file changed']);
  t.false(changed.join(' ').includes('secret'), 'no password in the log');
});

test("the fronts' reload says whether every front serves the new certificate", (t) => {
  t.is(
    frontsReloadLine('app.example.test', ['swapped', 'swapped']),
    'fetch: app.example.test: the new certificate is served by all 2 fronts (2 switched to it now)',
  );
  t.is(
    frontsReloadLine('app.example.test', ['unchanged', 'swapped']),
    'fetch: app.example.test: the new certificate is served by all 2 fronts (1 switched to it now, 1 had read the new files already)',
  );
  t.is(
    frontsReloadLine('app.example.test', ['kept', 'swapped']),
    "fetch: app.example.test: 1 of 2 fronts kept the previous certificate (the front's warning says why); 1 switched to it now",
  );
});

test('a reload command: its exit code and last lines on success and on failure', async (t) => {
  const script = 'for i in 1 2 3 4 5 6 7; do echo "line $i"; done; echo "to stderr" >&2; exit "$0"';
  const ok = await runReloadCommand(['sh', '-c', script, '0'], ['app.example.test']);
  t.deepEqual(ok, { code: 0, lastLines: ['line 4', 'line 5', 'line 6', 'line 7', 'to stderr'] });
  t.is(
    reloadSuccessLine(['sh'], ['app.example.test'], ok),
    'reload command sh ran for app.example.test: exit code 0; its last lines: line 4 | line 5 | line 6 | line 7 | to stderr',
  );
  const failed = await t.throwsAsync(runReloadCommand(['sh', '-c', script, '3'], ['app.example.test']));
  t.is(failed?.message, 'reload command sh exited with code 3; its last lines: line 4 | line 5 | line 6 | line 7 | to stderr');
});
