// certhub-agent fetch's --format, --p12-password-file and --p12-legacy: which combinations are refused
// and in which words, the password file refused while group or others may read it, and the password
// as `openssl -passin file:` reads it (the first line). A PKCS#12 file is current only under its own
// password, form and material.
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { pkcs12Holds, pkcs12Of } from '../../../src/crypto/pkcs12.js';
import { formatProblems, readOutputFormats } from '../../../actors/proxy/cli/fetch-formats.js';
import { ConfigError } from '../../../src/errors.js';
import { testChain } from '../../helpers/certificates.js';
import { tempDir } from '../../helpers/qpool.js';

test('the format options fit together or are refused, each problem named', (t) => {
  t.deepEqual(formatProblems({}), []);
  t.deepEqual(formatProblems({ format: 'pem' }), []);
  t.deepEqual(formatProblems({ format: 'p12', p12PasswordFile: 'pass' }), []);
  t.deepEqual(formatProblems({ format: 'p12,pem', p12PasswordFile: 'pass', p12Legacy: true }), []);
  t.deepEqual(formatProblems({ format: 'jks' }), ['--format must be pem, p12 or pem,p12, not "jks"']);
  t.deepEqual(formatProblems({ format: 'pem,pem' }), ['--format must be pem, p12 or pem,p12, not "pem,pem"']);
  t.deepEqual(formatProblems({ format: '' }), ['--format must be pem, p12 or pem,p12, not ""']);
  t.deepEqual(formatProblems({ format: 'p12' }), ['--format p12 needs --p12-password-file FILE (the password on its first line)']);
  t.deepEqual(formatProblems({ format: 'pem', p12PasswordFile: 'pass', p12Legacy: true }), [
    '--p12-password-file needs --format p12 (or pem,p12)',
    '--p12-legacy needs --format p12 (or pem,p12)',
  ]);
  t.deepEqual(formatProblems({ format: 'p12', p12PasswordFile: 'pass', combinedPem: true }), ['--combined-pem needs --format pem (or pem,p12)']);
});

test('the password file: its first line; refused when others may read it, empty or missing', async (t) => {
  const dir = await tempDir(t, 'agent-p12-');
  const file = join(dir, 'p12.pass');
  await writeFile(file, 'correct horse\nsecond line\n', { mode: 0o600 });
  t.deepEqual(await readOutputFormats({ format: 'pem,p12', p12PasswordFile: file }), {
    pem: true,
    p12: { password: 'correct horse', legacy: false },
  });
  t.deepEqual(await readOutputFormats({ format: 'p12', p12PasswordFile: file, p12Legacy: true }), {
    pem: false,
    p12: { password: 'correct horse', legacy: true },
  });
  t.deepEqual(await readOutputFormats({ format: 'pem' }), { pem: true });

  await chmod(file, 0o640);
  const open = await t.throwsAsync(readOutputFormats({ format: 'p12', p12PasswordFile: file }), { instanceOf: ConfigError });
  t.regex(open.message, /p12\.pass is readable by group or others \(mode 0640\); it holds the PKCS#12 password: run chmod 600 \S+p12\.pass/);

  await writeFile(join(dir, 'empty'), '\nlater\n', { mode: 0o600 });
  await t.throwsAsync(readOutputFormats({ format: 'p12', p12PasswordFile: join(dir, 'empty') }), {
    message: /--p12-password-file \S+empty holds no password on its first line/,
  });
  await t.throwsAsync(readOutputFormats({ format: 'p12', p12PasswordFile: join(dir, 'missing') }), {
    message: /--p12-password-file cannot read \S+missing: ENOENT/,
  });
});

test('a PKCS#12 file is current under its own password, form and material only', async (t) => {
  const now = Date.now();
  const chain = await testChain('app.example.test', { notBefore: new Date(now - 86_400_000), notAfter: new Date(now + 30 * 86_400_000) });
  const material = { domain: 'app.example.test', certPem: chain.certPem, chainPem: '', keyPem: chain.keyPem };
  const modern = { password: 'pässword', legacy: false };
  const legacy = { password: 'pässword', legacy: true };
  const [modernFile, legacyFile] = await Promise.all([pkcs12Of(material, modern), pkcs12Of(material, legacy)]);
  t.true(await pkcs12Holds(modernFile, material, modern));
  t.true(await pkcs12Holds(legacyFile, material, legacy));
  t.false(await pkcs12Holds(modernFile, material, legacy), 'the other form');
  t.false(await pkcs12Holds(legacyFile, material, modern), 'the other form');
  t.false(await pkcs12Holds(modernFile, material, { ...modern, password: 'other' }), 'another password');
  t.false(await pkcs12Holds(modernFile, { ...material, chainPem: chain.caPem }, modern), 'another chain');
  t.false(await pkcs12Holds(modernFile, { ...material, domain: 'web.example.test' }, modern), 'another name');
  t.false(await pkcs12Holds(Buffer.from('damaged'), material, modern), 'not a PKCS#12 file');
  t.notDeepEqual(await pkcs12Of(material, modern), modernFile, 'new salts each time');
});
