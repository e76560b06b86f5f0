// A missing acme.ca_bundle is a config error found before any actor starts: exit 2 naming the option
// as for every file a config names, not an acme actor crash-looping with stack traces.
import test from 'ava';
import { reservePort } from '../../../src/http/port.js';
import { certhubBin, certhubDataDir } from '../../helpers/certhub.js';
import { runToEnd } from '../../helpers/process.js';

test('certhub run with a missing acme.ca_bundle exits 2 naming acme.ca_bundle', async (t) => {
  const provider = `http://127.0.0.1:${await reservePort('127.0.0.1')}`;
  const dataDir = await certhubDataDir(t, {
    dns: { provider: 'powerdns', server_url: provider, api_token: 'unused', zone: 'example.test' },
    acme: { directory_url: `https://127.0.0.1:${await reservePort('127.0.0.1')}/dir`, ca_bundle: '/nonexistent/pebble-ca.pem' },
  });
  const result = await runToEnd(process.execPath, [certhubBin, 'run', '-d', dataDir, '-H', '127.0.0.1', '-p', '0']);
  t.is(result.code, 2, result.stderr);
  t.regex(result.stderr, /acme\.ca_bundle: \/nonexistent\/pebble-ca\.pem cannot be read: ENOENT/);
  t.notRegex(result.stderr, /\n\s+at /, 'no stack trace');
});
