// The domain store on real files: what is written reads back, a change touches only its domain,
// and whatever a crash can leave (temporary files, tombstones, a folder without a record) is
// cleaned up or reported at the next open, never loaded as half a domain.
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { parseMaterial } from '../../actors/domains/material.js';
import { DomainStore } from '../../actors/domains/store.js';
import { certDataDir, materialVersions, pemBlock, testRecord, versionedMaterial } from '../helpers/cert-files.js';

async function modeOf(path: string): Promise<number> {
  return (await stat(path)).mode & 0o777;
}

test('records and material read back as written; folders 0700, files 0600', async (t) => {
  const dataDir = await certDataDir(t);
  const { store, loaded } = await DomainStore.open(dataDir);
  t.is(loaded.domains.size, 0);
  const app = testRecord('app');
  const api = { ...testRecord('api'), status: 'issued' as const, issued_at: '2025-01-01T00:00:00.000Z', expires_at: '2025-03-31T00:00:00.000Z' };
  await store.writeRecord(app);
  await store.writeRecord(api);
  await store.writeMaterial(api.name, versionedMaterial('v1'));

  const reopened = await DomainStore.open(dataDir);
  t.deepEqual(reopened.loaded.problems, []);
  t.deepEqual(reopened.loaded.domains.get(app.name), { record: app, material: undefined });
  t.deepEqual(reopened.loaded.domains.get(api.name), { record: api, material: versionedMaterial('v1') });
  for (const dir of [dataDir, join(dataDir, 'domains'), join(dataDir, 'domains', api.name)]) t.is(await modeOf(dir), 0o700, dir);
  for (const file of ['domain.json', 'material.pem']) t.is(await modeOf(join(dataDir, 'domains', api.name, file)), 0o600, file);
  t.deepEqual((await readdir(join(dataDir, 'domains', api.name))).sort(), ['domain.json', 'material.pem']);
});

test('a change to one domain writes only that domain\'s files', async (t) => {
  const dataDir = await certDataDir(t);
  const { store } = await DomainStore.open(dataDir);
  const records = ['a', 'b', 'c'].map((label) => testRecord(label));
  for (const record of records) {
    await store.writeRecord(record);
    await store.writeMaterial(record.name, versionedMaterial('v1'));
  }
  const snapshot = async () => {
    const files = new Map<string, string>();
    for (const record of records) {
      for (const file of ['domain.json', 'material.pem']) {
        const info = await stat(join(dataDir, 'domains', record.name, file));
        files.set(`${record.label}/${file}`, `${info.ino}:${info.mtimeMs}`);
      }
    }
    return files;
  };
  const before = await snapshot();
  await store.writeRecord({ ...records[1]!, target: 'backend.example.net', record_type: 'CNAME' });
  await store.writeMaterial(records[1]!.name, versionedMaterial('v2'));
  const after = await snapshot();
  for (const [file, identity] of before) {
    if (file.startsWith('b/')) t.not(after.get(file), identity, `${file} was replaced`);
    else t.is(after.get(file), identity, `${file} was not touched`);
  }
  t.deepEqual((await readdir(dataDir)).sort(), ['domains']);
});

test('writes to one domain land in call order, however they interleave', async (t) => {
  const dataDir = await certDataDir(t);
  const { store } = await DomainStore.open(dataDir);
  const record = testRecord('order');
  const writes = Array.from({ length: 20 }, (_, index) => store.writeRecord({ ...record, target: `10.0.0.${index + 1}` }));
  writes.push(store.writeMaterial(record.name, versionedMaterial('last')));
  await Promise.all(writes);
  await store.flush();
  const { loaded } = await DomainStore.open(dataDir);
  t.is(loaded.domains.get(record.name)?.record.target, '10.0.0.20');
  t.deepEqual(materialVersions(loaded.domains.get(record.name)!.material!), ['last', 'last', 'last']);
});

test('remove deletes the folder; a tombstone left by a crash is deleted at open, never loaded', async (t) => {
  const dataDir = await certDataDir(t);
  const { store } = await DomainStore.open(dataDir);
  const gone = testRecord('gone');
  await store.writeRecord(gone);
  await store.writeMaterial(gone.name, versionedMaterial('v1'));
  await store.remove(gone.name);
  await store.remove(gone.name);
  t.deepEqual(await readdir(join(dataDir, 'domains')), []);

  // A crash after the rename, before the deletion finished: the tombstone still holds the files.
  const crashed = testRecord('crashed');
  await store.writeRecord(crashed);
  const tombstone = join(dataDir, 'domains', `.removed-${crashed.name}-0a0b0c0d0e0f`);
  await mkdir(tombstone);
  await writeFile(join(tombstone, 'domain.json'), JSON.stringify(crashed));
  await store.remove(crashed.name);
  await writeFile(join(dataDir, 'domains', 'stray-file'), 'not a domain');
  const { loaded } = await DomainStore.open(dataDir);
  t.is(loaded.domains.size, 0);
  t.deepEqual(loaded.problems, []);
  t.deepEqual(await readdir(join(dataDir, 'domains')), ['stray-file']);
});

test('a partial write (leftover temporary file) is ignored and cleaned; the last whole version loads', async (t) => {
  const dataDir = await certDataDir(t);
  const { store } = await DomainStore.open(dataDir);
  const record = testRecord('partial');
  await store.writeRecord(record);
  await store.writeMaterial(record.name, versionedMaterial('v1'));
  const dir = join(dataDir, 'domains', record.name);
  // What a crash during the next writes leaves: cut-off temporary files beside the whole ones.
  await writeFile(join(dir, '.domain.json.a1b2c3d4e5f6.tmp'), JSON.stringify({ ...record, target: '10.9.9.9' }).slice(0, 40));
  await writeFile(join(dir, '.material.pem.a1b2c3d4e5f6.tmp'), versionedMaterial('v2').cert_pem.slice(0, 100));
  // A crash between making a new domain's folder and writing its record.
  await mkdir(join(dataDir, 'domains', 'half.example.com'));
  await writeFile(join(dataDir, 'domains', 'half.example.com', '.domain.json.000000000000.tmp'), '{"na');
  const { loaded } = await DomainStore.open(dataDir);
  t.deepEqual(loaded.problems, []);
  t.deepEqual([...loaded.domains.keys()], [record.name]);
  t.deepEqual(loaded.domains.get(record.name), { record, material: versionedMaterial('v1') });
  t.deepEqual((await readdir(dir)).sort(), ['domain.json', 'material.pem']);
  t.deepEqual(await readdir(join(dataDir, 'domains')), [record.name]);
});

test('files that are not a domain are reported and skipped, the rest loads', async (t) => {
  const dataDir = await certDataDir(t);
  const { store } = await DomainStore.open(dataDir);
  const good = testRecord('good');
  await store.writeRecord(good);
  const domains = join(dataDir, 'domains');
  const plant = async (dirName: string, file: string, content: string) => {
    await mkdir(join(domains, dirName), { recursive: true });
    await writeFile(join(domains, dirName, file), content);
  };
  await plant('json.example.com', 'domain.json', '{"name": ');
  await plant('schema.example.com', 'domain.json', JSON.stringify({ ...testRecord('schema'), status: 'done' }));
  await plant('moved.example.com', 'domain.json', JSON.stringify(testRecord('other')));
  await plant('orphan.example.com', 'material.pem', versionedMaterial('v1').cert_pem);
  await plant('badpem.example.com', 'domain.json', JSON.stringify(testRecord('badpem')));
  await plant('badpem.example.com', 'material.pem', versionedMaterial('v1').cert_pem);
  const { loaded } = await DomainStore.open(dataDir);
  t.deepEqual([...loaded.domains.keys()].sort(), ['badpem.example.com', 'good.example.com']);
  t.is(loaded.domains.get('badpem.example.com')?.material, undefined);
  const problems = loaded.problems.map((line) => line.replace(`${domains}/`, '')).sort();
  t.is(problems.length, 5);
  t.regex(problems[0]!, /^badpem\.example\.com\/material\.pem holds 0 private keys, not one; the domain is loaded without material$/);
  t.regex(problems[1]!, /^json\.example\.com\/domain\.json cannot be read: .*JSON.*; skipped$/);
  t.is(problems[2], 'moved.example.com/domain.json holds the domain other.example.com, not moved.example.com; skipped');
  t.is(problems[3], 'orphan.example.com has no domain.json; skipped');
  t.regex(problems[4]!, /^schema\.example\.com\/domain\.json is not a domain record \(status: .*\); skipped$/);
  t.true((await stat(join(domains, 'orphan.example.com', 'material.pem'))).isFile(), 'material without a record is left for the operator');
});

test('material is checked before it is written; PEM text is kept in canonical form', async (t) => {
  const dataDir = await certDataDir(t);
  const { store } = await DomainStore.open(dataDir);
  const record = testRecord('pem');
  await store.writeRecord(record);
  const material = versionedMaterial('v1');
  await t.throwsAsync(store.writeMaterial(record.name, { ...material, cert_pem: material.cert_pem + material.key_pem }), { message: /^cert_pem \(one CERTIFICATE block\) does not hold what it should$/ });
  await t.throwsAsync(store.writeMaterial(record.name, { ...material, key_pem: '' }), { message: /^key_pem/ });
  t.deepEqual(await readdir(join(dataDir, 'domains', record.name)), ['domain.json']);
  // CRLF line ends and text around the blocks are dropped; an empty chain (self-signed) is fine.
  await store.writeMaterial(record.name, { cert_pem: `Subject: x\r\n${material.cert_pem.replace(/\n/g, '\r\n')}`, chain_pem: '', key_pem: `${material.key_pem}\n\n` });
  const text = await readFile(join(dataDir, 'domains', record.name, 'material.pem'), 'utf8');
  t.is(text, material.cert_pem + material.key_pem);
  t.deepEqual(parseMaterial(text), { cert_pem: material.cert_pem, chain_pem: '', key_pem: material.key_pem });
  const chained = parseMaterial(material.cert_pem + material.chain_pem + pemBlock('CERTIFICATE', 'root') + material.key_pem);
  t.is(chained.chain_pem, material.chain_pem + pemBlock('CERTIFICATE', 'root'));
});
