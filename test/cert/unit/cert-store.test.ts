// The domain store on real files: what is written reads back, a change touches only its domain,
// and whatever a crash can leave (temporary files) is cleaned up at the next open; damaged files are
// reported, never loaded as half a domain.
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { normalizeMaterial } from '../../../actors/cert/domains/material.js';
import { DomainStore } from '../../../actors/cert/domains/store.js';
import { certDataDir, materialVersions, pemBlock, testRecord, versionedMaterial } from '../../helpers/cert-files.js';

async function modeOf(path: string): Promise<number> {
  return (await stat(path)).mode & 0o777;
}

test('domains read back as written: record and material together; folders 0700, files 0600', async (t) => {
  const dataDir = await certDataDir(t);
  const { store, loaded } = await DomainStore.open(dataDir);
  t.is(loaded.domains.size, 0);
  const app = { record: testRecord('app'), material: undefined };
  const api = {
    record: { ...testRecord('api'), status: 'issued' as const, issued_at: '2025-01-01T00:00:00.000Z', expires_at: '2025-03-31T00:00:00.000Z' },
    material: versionedMaterial('v1'),
  };
  await store.write(app);
  await store.write(api);

  const reopened = await DomainStore.open(dataDir);
  t.deepEqual(reopened.loaded.problems, []);
  t.deepEqual(reopened.loaded.domains.get(app.record.name), app);
  t.deepEqual(reopened.loaded.domains.get(api.record.name), api);
  for (const dir of [dataDir, join(dataDir, 'domains')]) t.is(await modeOf(dir), 0o700, dir);
  t.deepEqual((await readdir(join(dataDir, 'domains'))).sort(), ['api.example.com.json', 'app.example.com.json']);
  for (const file of await readdir(join(dataDir, 'domains'))) t.is(await modeOf(join(dataDir, 'domains', file)), 0o600, file);
});

test("a change to one domain writes only that domain's file", async (t) => {
  const dataDir = await certDataDir(t);
  const { store } = await DomainStore.open(dataDir);
  const domains = ['a', 'b', 'c'].map((label) => ({ record: testRecord(label), material: versionedMaterial('v1') }));
  for (const domain of domains) await store.write(domain);
  const snapshot = async () => {
    const files = new Map<string, string>();
    for (const file of await readdir(join(dataDir, 'domains'))) {
      const info = await stat(join(dataDir, 'domains', file));
      files.set(file, `${info.ino}:${info.mtimeMs}`);
    }
    return files;
  };
  const before = await snapshot();
  await store.write({ record: { ...domains[1]!.record, target: 'backend.example.net', record_type: 'CNAME' }, material: versionedMaterial('v2') });
  const after = await snapshot();
  t.deepEqual([...after.keys()].sort(), [...before.keys()].sort());
  for (const [file, identity] of before) {
    if (file.startsWith('b.')) t.not(after.get(file), identity, `${file} was replaced`);
    else t.is(after.get(file), identity, `${file} was not touched`);
  }
  t.deepEqual(await readdir(dataDir), ['domains']);
});

test('writes to one domain land in call order, however they interleave', async (t) => {
  const dataDir = await certDataDir(t);
  const { store } = await DomainStore.open(dataDir);
  const record = testRecord('order');
  const writes = Array.from({ length: 20 }, (_, index) =>
    store.write({ record: { ...record, target: `10.0.0.${index + 1}` }, material: versionedMaterial(String(index)) }),
  );
  await Promise.all(writes);
  await store.flush();
  const { loaded } = await DomainStore.open(dataDir);
  t.is(loaded.domains.get(record.name)?.record.target, '10.0.0.20');
  t.deepEqual(materialVersions(loaded.domains.get(record.name)!.material!), ['19', '19', '19']);
});

test('remove deletes the domain for good; removing twice is fine', async (t) => {
  const dataDir = await certDataDir(t);
  const { store } = await DomainStore.open(dataDir);
  const gone = testRecord('gone');
  const kept = testRecord('kept');
  await store.write({ record: gone, material: versionedMaterial('v1') });
  await store.write({ record: kept, material: undefined });
  await store.remove(gone.name);
  await store.remove(gone.name);
  t.deepEqual(await readdir(join(dataDir, 'domains')), ['kept.example.com.json']);
  const { loaded } = await DomainStore.open(dataDir);
  t.deepEqual([...loaded.domains.keys()], [kept.name]);
});

test('a partial write (leftover temporary file) is ignored and cleaned; the last whole version loads', async (t) => {
  const dataDir = await certDataDir(t);
  const { store } = await DomainStore.open(dataDir);
  const domain = { record: testRecord('partial'), material: versionedMaterial('v1') };
  await store.write(domain);
  const domainsDir = join(dataDir, 'domains');
  // What a crash during the next write leaves: a cut-off temporary file beside the whole one.
  const next = JSON.stringify({ record: { ...domain.record, target: '10.9.9.9' }, material: versionedMaterial('v2') });
  await writeFile(join(domainsDir, '.partial.example.com.json.a1b2c3d4e5f6.tmp'), next.slice(0, next.length / 2));
  // A crash during a new domain's first write: only its temporary file exists.
  await writeFile(join(domainsDir, '.half.example.com.json.000000000000.tmp'), '{"rec');
  const { loaded } = await DomainStore.open(dataDir);
  t.deepEqual(loaded.problems, []);
  t.deepEqual([...loaded.domains.keys()], [domain.record.name]);
  t.deepEqual(loaded.domains.get(domain.record.name), domain);
  t.deepEqual(await readdir(domainsDir), ['partial.example.com.json']);
});

test('files that are not a domain are reported and skipped, the rest loads', async (t) => {
  const dataDir = await certDataDir(t);
  const { store } = await DomainStore.open(dataDir);
  const good = testRecord('good');
  await store.write({ record: good, material: undefined });
  const domainsDir = join(dataDir, 'domains');
  const plant = (file: string, content: unknown) => writeFile(join(domainsDir, file), typeof content === 'string' ? content : JSON.stringify(content));
  await plant('json.example.com.json', '{"record": ');
  await plant('schema.example.com.json', { record: { ...testRecord('schema'), status: 'done' }, material: null });
  await plant('moved.example.com.json', { record: testRecord('other'), material: null });
  await plant('badpem.example.com.json', { record: testRecord('badpem'), material: { cert_pem: 'x' } });
  await plant('notes.txt', 'not a domain');
  const { loaded } = await DomainStore.open(dataDir);
  t.deepEqual([...loaded.domains.keys()].sort(), ['badpem.example.com', 'good.example.com']);
  t.is(loaded.domains.get('badpem.example.com')?.material, undefined);
  const problems = loaded.problems.map((line) => line.replace(`${domainsDir}/`, '')).sort();
  t.deepEqual(problems.length, 4, problems.join('\n'));
  t.is(problems[0], 'badpem.example.com.json holds material without cert_pem, chain_pem and key_pem; the domain is loaded without material');
  t.regex(problems[1]!, /^json\.example\.com\.json cannot be read: .*JSON.*; skipped$/);
  t.is(problems[2], 'moved.example.com.json holds the domain other.example.com, not moved.example.com; skipped');
  t.regex(problems[3]!, /^schema\.example\.com\.json holds no valid domain record \(record\.status: .*\); skipped$/);
  t.deepEqual((await readdir(domainsDir)).length, 6, 'damaged files are left for the operator');
});

test('material is checked before it is written and kept in canonical PEM form', async (t) => {
  const dataDir = await certDataDir(t);
  const { store } = await DomainStore.open(dataDir);
  const record = testRecord('pem');
  const material = versionedMaterial('v1');
  await t.throwsAsync(store.write({ record, material: { ...material, cert_pem: material.cert_pem + material.key_pem } }), {
    message: /^cert_pem \(one CERTIFICATE block\) does not hold what it should$/,
  });
  await t.throwsAsync(store.write({ record, material: { ...material, key_pem: '' } }), { message: /^key_pem/ });
  await t.throwsAsync(store.write({ record: { ...record, own_key: true }, material }), {
    message: /^key_pem \(no private key: the key of an own_key domain stays on its host\)/,
  });
  await t.throwsAsync(store.write({ record, material: { ...material, chain_pem: material.key_pem } }), { message: /^chain_pem/ });
  await t.throwsAsync(store.write({ record: { ...record, name: '../escape' }, material: undefined }), { message: 'not a domain name: "../escape"' });
  t.deepEqual(await readdir(join(dataDir, 'domains')), []);
  // CRLF line ends and text around the blocks are dropped; an empty chain (self-signed) is fine.
  await store.write({
    record,
    material: { cert_pem: `Subject: x\r\n${material.cert_pem.replace(/\n/g, '\r\n')}`, chain_pem: '', key_pem: `${material.key_pem}\n\n` },
  });
  const stored = JSON.parse(await readFile(join(dataDir, 'domains', 'pem.example.com.json'), 'utf8')) as { material: unknown };
  t.deepEqual(stored.material, { cert_pem: material.cert_pem, chain_pem: '', key_pem: material.key_pem });
  const chain = material.chain_pem + pemBlock('CERTIFICATE', 'root');
  t.is(normalizeMaterial({ ...material, chain_pem: chain }).chain_pem, chain);
});
