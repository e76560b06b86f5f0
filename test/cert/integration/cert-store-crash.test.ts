// kill -9 at any instant while domains are written and removed: the next open loads only whole
// domains, each with a record that parses and material of the same round as the record (certificate,
// chain and key together), and leaves no temporary file behind.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { DomainStore } from '../../../actors/cert/domains/store.js';
import { certDataDir, materialVersions } from '../../helpers/cert-files.js';
import { projectPath, startProcess } from '../../helpers/process.js';

test('a store writer killed at random instants leaves only whole domains', async (t) => {
  const dataDir = await certDataDir(t);
  for (let round = 0; round < 12; round++) {
    const writer = startProcess(t, process.execPath, [projectPath('dist/test/fixtures/cert-store-writer.js'), dataDir]);
    await writer.waitFor(/first rounds done/);
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 80));
    writer.child.kill('SIGKILL');
    await writer.exited;
    const { loaded } = await DomainStore.open(dataDir);
    t.deepEqual(loaded.problems, [], `round ${round}`);
    for (const [name, { record, material }] of loaded.domains) {
      t.is(record.name, name);
      // The writer puts its round in the record's error field and in every part of the material.
      t.deepEqual(materialVersions(material!), [record.error, record.error, record.error], `round ${round}: ${name} is one version throughout`);
    }
    const files = await readdir(join(dataDir, 'domains'));
    t.true(
      files.every((file) => /^d\d\.example\.com\.json$/.test(file)),
      `round ${round}: ${files.join(', ')}`,
    );
  }
});
