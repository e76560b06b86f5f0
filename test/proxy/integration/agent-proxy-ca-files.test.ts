// The CA files a proxy config names (ca_file, ca_bundle) are read before any actor starts: a missing or
// empty one is a config error, exit 2 naming the option, not a cert-fetcher crash-looping with stack
// traces until the supervisor gives up, like every file a config names.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { reservePort } from '../../../src/http/port.js';
import { temporaryDir } from '../../helpers/agent-proxy.js';
import { runAgent } from '../../helpers/certhub-agent.js';

async function proxyConfig(dir: string, extra: object): Promise<string> {
  const file = join(dir, 'proxy.json');
  const config = {
    host: '127.0.0.1',
    port: 0,
    material_dir: join(dir, 'material'),
    server: `http://127.0.0.1:${await reservePort('127.0.0.1')}`,
    routes: { 'app.example.test': { backend: `127.0.0.1:${await reservePort('127.0.0.1')}`, token: `chd_${'x'.repeat(43)}` } },
    ...extra,
  };
  await writeFile(file, JSON.stringify(config), { mode: 0o600 });
  return file;
}

test('certhub-agent proxy with a missing ca_bundle exits 2 naming ca_bundle, before any actor starts', async (t) => {
  const dir = await temporaryDir(t, 'proxy-ca-');
  const result = await runAgent(['proxy', '-c', await proxyConfig(dir, { ca_bundle: join(dir, 'nowhere.pem') })]);
  t.is(result.code, 2, result.stderr);
  // Named as in the file the user wrote (proxy.json has no `roles.proxy`).
  t.regex(result.stderr, /^ {2}\S*proxy\.json: ca_bundle: \S+nowhere\.pem cannot be read: ENOENT \(no such file\)$/m);
  t.notRegex(result.stderr, /crashed|\n\s+at /, 'no actor crash, no stack trace');
});

test('certhub-agent proxy with a ca_file that holds no certificate exits 2 naming ca_file', async (t) => {
  const dir = await temporaryDir(t, 'proxy-ca-');
  const empty = join(dir, 'empty.pem');
  await writeFile(empty, 'not a certificate\n');
  const result = await runAgent(['proxy', '-c', await proxyConfig(dir, { ca_file: empty })]);
  t.is(result.code, 2, result.stderr);
  t.regex(result.stderr, /^ {2}\S*proxy\.json: ca_file: \S+empty\.pem holds no PEM certificate/m);
});
