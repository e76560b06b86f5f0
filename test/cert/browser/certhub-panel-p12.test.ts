// The PKCS#12 download of an expanded row, against `certhub run --demo`: the admin types a password,
// downloads <domain>.p12 in the modern form and in the legacy one, and openssl reads each back with
// that password (the legacy one with -legacy). An own_key domain's row says its key is kept on the
// host and offers neither the key nor a .p12.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import { saveScreenshot } from '../../helpers/browser.js';
import { tempDir } from '../../helpers/qpool.js';
import { addDomains, demoCerthub, expandRow, openPanel, unexpected } from '../helpers/certhub-panel.js';

const run = promisify(execFile);
const password = 'correct horse battery staple';

test('a .p12 with the password typed, modern and legacy, read back by openssl; none for a key kept on the host', async (t) => {
  const server = await demoCerthub(t);
  await addDomains(server, [{ name: 'web', target: '203.0.113.1' }]);
  const added = await server.admin('api/admin/domains', { method: 'POST', body: { name: 'device', target: '203.0.113.2', own_key: true } });
  t.is(added.status, 201);
  const { page, problems } = await openPanel(t, server);
  const details = await expandRow(page, 'web.example.test');
  t.is(await details.locator('dt:text-is("Key") + dd').textContent(), 'made and kept by certhub');
  const dir = await tempDir(t, 'panel-p12-');
  for (const legacy of [false, true]) {
    await details.getByLabel('PKCS#12 password').fill(password);
    await details.getByLabel(/Legacy form/).setChecked(legacy);
    if (!legacy) await saveScreenshot(page, 'certhub-panel-p12');
    const [download] = await Promise.all([page.waitForEvent('download'), details.getByRole('button', { name: 'Download .p12' }).click()]);
    t.is(download.suggestedFilename(), 'web.example.test.p12');
    const file = join(dir, legacy ? 'legacy.p12' : 'modern.p12');
    await download.saveAs(file);
    const { stdout, stderr } = await run('openssl', ['pkcs12', ...(legacy ? ['-legacy'] : []), '-info', '-in', file, '-passin', `pass:${password}`, '-noenc']);
    t.regex(stdout, /BEGIN CERTIFICATE/);
    t.regex(stdout, /BEGIN PRIVATE KEY/);
    t.regex(stderr, legacy ? /pbeWithSHA1And3-KeyTripleDES-CBC/ : /PBES2, PBKDF2, AES-256-CBC/);
    t.regex(stderr, legacy ? /MAC: sha1/ : /MAC: sha256/);
    await t.throwsAsync(run('openssl', ['pkcs12', '-info', '-in', file, '-passin', 'pass:wrong', '-noenc']));
  }
  t.is(await details.getByLabel('PKCS#12 password').inputValue(), '', 'the password is not kept in the page');

  const device = await expandRow(page, 'device.example.test');
  t.regex((await device.locator('dt:text-is("Key") + dd').textContent()) ?? '', /^key kept on the host: certhub holds none, and waits for its CSR$/);
  t.true(await device.locator('.p12-form').isHidden());
  t.true(await device.getByRole('link', { name: 'Key (.key)' }).isHidden());
  await saveScreenshot(page, 'certhub-panel-own-key', { fullPage: true });
  t.deepEqual(unexpected(problems), []);
});
