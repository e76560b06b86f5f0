import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { applyPrefsUpdate, defaultPrefs, parsePrefs, readPrefs, writePrefs } from '../../../actors/cert/domains/prefs.js';
import { certDataDir } from '../../helpers/cert-files.js';
import { badRequestMessage } from '../helpers/refusal.js';
import { FileDocuments } from '../../../actors/cert/store/documents.js';

test('defaults: fetch JSON, the page origin, name ascending, no filter', (t) => {
  t.deepEqual(defaultPrefs, { export_format: 'fetch-json', export_server_url: null, sort: { key: 'name', direction: 'asc' }, filter: '' });
});

test('an update changes only what it names; sort may be given in part', (t) => {
  const sorted = applyPrefsUpdate(defaultPrefs, { sort: { key: 'expires' } });
  t.deepEqual(sorted.sort, { key: 'expires', direction: 'asc' });
  const next = applyPrefsUpdate(sorted, {
    sort: { direction: 'desc' },
    export_format: 'csv',
    export_server_url: 'https://certs.example.com:8443',
    filter: 'App',
  });
  t.deepEqual(next, { export_format: 'csv', export_server_url: 'https://certs.example.com:8443', sort: { key: 'expires', direction: 'desc' }, filter: 'App' });
  t.is(applyPrefsUpdate(next, { export_server_url: null }).export_server_url, null);
});

test('bad fields are refused by name, and nothing else is accepted', (t) => {
  t.is(
    badRequestMessage(() => applyPrefsUpdate(defaultPrefs, { sort: { key: 'size' } })),
    'sort.key must be one of "name", "expires"',
  );
  t.is(
    badRequestMessage(() => applyPrefsUpdate(defaultPrefs, { sort: 'name' })),
    'sort must be an object',
  );
  t.is(
    badRequestMessage(() => applyPrefsUpdate(defaultPrefs, { export_format: 'xml', export_server_url: 'ftp://x' })),
    'export_format must be one of "fetch-json", "fetch-cli", "proxy-json", "csv"; export_server_url must be a valid url',
  );
  t.is(
    badRequestMessage(() => applyPrefsUpdate(defaultPrefs, { filter: 'x'.repeat(254) })),
    'filter must be at most 253 characters long',
  );
  t.is(
    badRequestMessage(() => applyPrefsUpdate(defaultPrefs, { colour: 'red' })),
    'colour is not a known option',
  );
  t.is(
    badRequestMessage(() => applyPrefsUpdate(defaultPrefs, [])),
    'prefs must be a JSON object',
  );
  t.is(
    badRequestMessage(() => parsePrefs(null)),
    'prefs must be a JSON object',
  );
});

test('prefs.json round trip (0600); missing means defaults, damaged means defaults and a reason', async (t) => {
  const dataDir = await certDataDir(t);
  t.deepEqual(await readPrefs(new FileDocuments(dataDir)), { prefs: defaultPrefs });
  const prefs = applyPrefsUpdate(defaultPrefs, { export_format: 'proxy-json', filter: 'api' });
  await writePrefs(new FileDocuments(dataDir), prefs);
  t.deepEqual(await readPrefs(new FileDocuments(dataDir)), { prefs });
  t.is((await stat(join(dataDir, 'prefs.json'))).mode & 0o777, 0o600);
  t.deepEqual(JSON.parse(await readFile(join(dataDir, 'prefs.json'), 'utf8')), prefs);
  await writeFile(join(dataDir, 'prefs.json'), '{"sort": {"key": "size"}}');
  const damaged = await readPrefs(new FileDocuments(dataDir));
  t.deepEqual(damaged.prefs, defaultPrefs);
  t.is(damaged.problem, `${join(dataDir, 'prefs.json')} is not usable (sort.key must be one of "name", "expires"); using the defaults`);
  await writeFile(join(dataDir, 'prefs.json'), '{"sort": ');
  t.regex((await readPrefs(new FileDocuments(dataDir))).problem ?? '', /is not usable \(.*JSON.*\); using the defaults$/);
});
