// certhub-agent fetch --format p12 against certhub on the real stack (PowerDNS + Pebble): openssl reads
// the modern file back with the password and names its algorithms (AES-256-CBC, PBKDF2, a SHA-256
// MAC), reads the legacy one with -legacy (3DES, a SHA-1 MAC), finds in each the leaf with its key and
// the chain without a root, and refuses a wrong password. A password file others may read is refused;
// an unchanged certificate leaves the file as it was; a renewal during --watch rewrites it and runs
// the reload command.
import { execFile } from 'node:child_process';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { chmod, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import { materialPaths } from '../../../actors/proxy/client/material-files.js';
import { withCertStack } from '../../helpers/cert-stack.js';
import { startCerthubOnStack } from '../../helpers/certhub-domains.js';
import { addIssuedDomain, runAgent, startAgent } from '../../helpers/certhub-agent.js';
import { eventually } from '../../helpers/fixture-host.js';
import { tempDir } from '../../helpers/qpool.js';

const run = promisify(execFile);

/** What `openssl pkcs12` prints (its -info lines go to stderr), or its failure. */
async function openssl(args: readonly string[]): Promise<{ ok: boolean; out: string }> {
  return run('openssl', ['pkcs12', ...args]).then(
    ({ stdout, stderr }) => ({ ok: true, out: `${stdout}${stderr}` }),
    (error: { stdout?: string; stderr?: string }) => ({ ok: false, out: `${error.stdout ?? ''}${error.stderr ?? ''}` }),
  );
}

function certificatesIn(text: string): X509Certificate[] {
  return (text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []).map((pem) => new X509Certificate(pem));
}

/** The leaf, the chain and the key openssl takes out of `file`, checked against the PEM files of `folder`. */
async function contentsOf(file: string, passFile: string, legacy: string[]) {
  const passin = ['-in', file, '-passin', `file:${passFile}`, ...legacy];
  const [leaf, chain, key] = await Promise.all([
    openssl([...passin, '-clcerts', '-nokeys']),
    openssl([...passin, '-cacerts', '-nokeys']),
    openssl([...passin, '-nocerts', '-nodes']),
  ]);
  const keyPem = /-----BEGIN PRIVATE KEY-----[\s\S]+?-----END PRIVATE KEY-----/.exec(key.out)?.[0] ?? '';
  return { leaf: certificatesIn(leaf.out), chain: certificatesIn(chain.out), key: createPrivateKey(keyPem) };
}

test(
  '--format p12 with Pebble: openssl reads the modern and the legacy file, with the leaf, its key and the chain; a wrong password and an open password file are refused; a renewal rewrites it',
  withCertStack,
  async (t, stack) => {
    const server = await startCerthubOnStack(t, stack);
    const { name, token } = await addIssuedDomain(server, 'app', 60_000);
    const dir = await tempDir(t, 'agent-p12-');
    const bundle = join(dir, 'pebble-root.pem');
    await writeFile(bundle, await stack.pebble.root());
    const passFile = join(dir, 'p12.pass');
    await writeFile(passFile, 'correct horse battery\n', { mode: 0o644 });
    const out = join(dir, 'certs');
    const args = ['fetch', '-s', server.url, '-t', token, '-d', name, '--ca-bundle', bundle, '--p12-password-file', passFile];

    const open = await runAgent([...args, '-o', out, '--format', 'pem,p12']);
    t.is(open.code, 2, open.stderr);
    t.regex(open.stderr, /p12\.pass is readable by group or others \(mode 0644\); it holds the PKCS#12 password: run chmod 600 /);
    t.deepEqual(await readdir(dir).then((names) => names.includes('certs')), false, 'nothing fetched');
    await chmod(passFile, 0o600);

    const fetched = await runAgent([...args, '-o', out, '--format', 'pem,p12']);
    t.is(fetched.code, 0, fetched.stderr);
    const paths = materialPaths(out, name);
    t.is((await stat(paths.p12)).mode & 0o777, 0o600);
    const [certPem, chainPem, fullchainPem] = await Promise.all([
      readFile(paths.cert, 'utf8'),
      readFile(paths.chain, 'utf8'),
      readFile(paths.fullchain, 'utf8'),
    ]);
    t.is(fullchainPem, `${certPem}${chainPem}`);
    const served = certificatesIn(fullchainPem);
    t.true(served.length >= 2, 'Pebble hands out an intermediate');
    t.false(
      served.some((certificate) => certificate.checkIssued(certificate)),
      'the full chain holds no root',
    );

    const info = await openssl(['-info', '-noout', '-in', paths.p12, '-passin', `file:${passFile}`]);
    t.true(info.ok, info.out);
    t.regex(info.out, /^MAC: sha256, Iteration 2048$/m);
    t.regex(info.out, /^PKCS7 Encrypted data: PBES2, PBKDF2, AES-256-CBC, Iteration 2048, PRF hmacWithSHA256$/m);
    t.regex(info.out, /^Shrouded Keybag: PBES2, PBKDF2, AES-256-CBC, Iteration 2048, PRF hmacWithSHA256$/m);
    const modern = await contentsOf(paths.p12, passFile, []);
    t.deepEqual(
      modern.leaf.map((certificate) => certificate.fingerprint256),
      [served[0]?.fingerprint256],
    );
    t.deepEqual(
      modern.chain.map((certificate) => certificate.fingerprint256).sort(),
      served
        .slice(1)
        .map((certificate) => certificate.fingerprint256)
        .sort(),
    );
    t.true(modern.leaf[0]?.checkPrivateKey(modern.key), 'the key in the file is the leaf’s');

    const wrongFile = join(dir, 'wrong.pass');
    await writeFile(wrongFile, 'wrong horse\n', { mode: 0o600 });
    const wrong = await openssl(['-info', '-noout', '-in', paths.p12, '-passin', `file:${wrongFile}`]);
    t.false(wrong.ok);
    t.regex(wrong.out, /Mac verify error: invalid password\?/);

    const before = await stat(paths.p12, { bigint: true });
    const again = await runAgent([...args, '-o', out, '--format', 'pem,p12']);
    t.is(again.code, 0, again.stderr);
    t.regex(again.stdout, /unchanged in/);
    const after = await stat(paths.p12, { bigint: true });
    t.deepEqual([after.ino, after.mtimeNs], [before.ino, before.mtimeNs], 'an unchanged certificate leaves the file as it was');

    const legacyOut = join(dir, 'legacy');
    const legacy = await runAgent([...args, '-o', legacyOut, '--format', 'p12', '--p12-legacy']);
    t.is(legacy.code, 0, legacy.stderr);
    t.deepEqual(await readdir(join(legacyOut, name)), ['bundle.p12'], 'no PEM file, no clear key, with --format p12 alone');
    const legacyPath = materialPaths(legacyOut, name).p12;
    const legacyInfo = await openssl(['-legacy', '-info', '-noout', '-in', legacyPath, '-passin', `file:${passFile}`]);
    t.true(legacyInfo.ok, legacyInfo.out);
    t.regex(legacyInfo.out, /^MAC: sha1, Iteration 2048$/m);
    t.regex(legacyInfo.out, /^PKCS7 Encrypted data: pbeWithSHA1And3-KeyTripleDES-CBC, Iteration 2048$/m);
    t.regex(legacyInfo.out, /^Shrouded Keybag: pbeWithSHA1And3-KeyTripleDES-CBC, Iteration 2048$/m);
    const old = await contentsOf(legacyPath, passFile, ['-legacy']);
    t.is(old.leaf[0]?.fingerprint256, served[0]?.fingerprint256);
    t.true(old.leaf[0]?.checkPrivateKey(old.key), 'the key in the legacy file is the leaf’s');
    t.false((await openssl(['-legacy', '-info', '-noout', '-in', legacyPath, '-passin', `file:${wrongFile}`])).ok, 'a wrong password');

    // --watch: a renewal on certhub reaches the .p12 and runs the reload command once more.
    const marker = join(dir, 'reloads');
    const reload = JSON.stringify([process.execPath, '-e', "require('node:fs').appendFileSync(process.argv[1], 'reload\\n')", marker]);
    const agent = startAgent(t, [...args, '-o', out, '--format', 'pem,p12', '--watch', '--interval', '2', '--reload-cmd', reload]);
    await agent.waitFor(/app\.example\.test: unchanged \(expires/, 30_000);
    const renewed = await server.admin(`api/admin/domains/app/renew`, { method: 'POST' });
    t.true(renewed.ok, `renew: HTTP ${renewed.status}`);
    const reloads = async () => (await readFile(marker, 'utf8').catch(() => '')).split('\n').filter((line) => line !== '').length;
    t.true(await eventually(async () => (await reloads()) >= 1, 60_000), agent.stderr());
    const renewedLeaf = await contentsOf(paths.p12, passFile, []);
    t.not(renewedLeaf.leaf[0]?.fingerprint256, served[0]?.fingerprint256, 'the new certificate is in the .p12');
    t.is(renewedLeaf.leaf[0]?.fingerprint256, new X509Certificate(await readFile(paths.cert, 'utf8')).fingerprint256, 'the same as cert.pem');
    t.true(renewedLeaf.leaf[0]?.checkPrivateKey(renewedLeaf.key));
    agent.child.kill('SIGTERM');
    t.is(await agent.exited, 0);
  },
);
