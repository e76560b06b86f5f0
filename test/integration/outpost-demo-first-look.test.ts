// `outpost demo` as a newcomer meets it: the printed proxy URL opens with the printed
// curl command (the demo proxy routes netspeed.localhost to the demo's netspeed page with a demo
// certificate whose file is printed), the admin key in the config file it names logs in to the cert
// panel's API, and Ctrl-C removes everything the demo put in the temp folder (its certhub data and the proxy's
// certificate). curl is the client a newcomer would use; it sends *.localhost to loopback itself.
import { readdir, readFile } from 'node:fs/promises';
import test from 'ava';
import { projectPath, runToEnd, startProcess } from '../helpers/process.js';
import { tempDir } from '../helpers/qpool.js';

test('outpost demo: the printed proxy URL opens trusting the printed certificate, the admin key in the printed file logs in, Ctrl-C leaves nothing in TMPDIR', async (t) => {
  const temp = await tempDir(t, 'demo-first-look-');
  const demo = startProcess(t, process.execPath, [projectPath('dist/bin/outpost.js'), 'demo'], { TMPDIR: temp });
  // A bound on a hang: every role starts, and the machine may be loaded.
  await demo.waitFor(/^ready in \d+ms/m, 90_000);
  const printed = demo.stdout();

  const cert = /^cert +(http:\/\/127\.0\.0\.1:\d+\/)\n +admin key: in (\S+) \(starts \S{6}…\) \(a demo key/m.exec(printed);
  t.truthy(cert, `where the admin key is is printed under the cert URL:\n${printed}`);
  const [, certUrl, configPath] = cert ?? [];
  const adminKey = (JSON.parse(await readFile(configPath!, 'utf8')) as { admin_key: string }).admin_key;
  t.false(printed.includes(adminKey), 'a stdout that is no terminal does not get the key');
  const login = await fetch(`${certUrl}api/admin/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: certUrl!.slice(0, -1) },
    body: JSON.stringify({ key: adminKey }),
  });
  t.is(login.status, 204, 'the key opens a panel session');
  t.is((await fetch(`${certUrl}api/admin/domains`, { headers: { authorization: `Bearer ${adminKey}` } })).status, 200);

  const proxy = /^proxy +(https:\/\/netspeed\.localhost:\d+\/)$/m.exec(printed);
  t.truthy(proxy, `the proxy URL is a name it routes:\n${printed}`);
  const curl = /^ +(curl --cacert (\S+) (https:\/\/\S+)) {3}\(or curl -k/m.exec(printed);
  t.truthy(curl, `how to trust its certificate is printed:\n${printed}`);
  const [, command, certificateFile, url] = curl ?? [];
  t.is(url, proxy?.[1]);
  t.true(certificateFile!.startsWith(temp), 'the certificate is in the demo temp folder');
  const page = await runToEnd('curl', [...command!.split(' ').slice(1), '--silent', '--show-error', '--fail']);
  t.is(page.code, 0, page.stderr);
  t.regex(page.stdout, /<title>netspeed<\/title>/, 'the demo netspeed page, through the proxy over TLS');
  const untrusted = await runToEnd('curl', ['--silent', '--fail', url!]);
  t.not(untrusted.code, 0, 'without the printed certificate the handshake is not trusted');

  demo.child.kill('SIGINT');
  t.is(await demo.exited, 0, demo.stderr());
  t.deepEqual(await readdir(temp), [], 'the demo data directory and the proxy certificate are removed');
});
