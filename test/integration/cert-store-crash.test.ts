// kill -9 at any instant while domains are written and removed: the next open loads only whole
// domains, each with a record that parses and material whose certificate, chain and key belong
// together, and leaves no temporary file or tombstone behind.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { DomainStore } from '../../actors/domains/store.js';
import { certDataDir, materialVersions } from '../helpers/cert-files.js';
import { projectPath, startProcess } from '../helpers/process.js';

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
      if (material !== undefined) t.is(new Set(materialVersions(material)).size, 1, `round ${round}: ${name} has certificate, chain and key of one version`);
    }
    for (const dir of await readdir(join(dataDir, 'domains'))) {
      t.false(dir.startsWith('.'), `round ${round}: no tombstone is left (${dir})`);
      const files = await readdir(join(dataDir, 'domains', dir));
      t.true(files.every((file) => file === 'domain.json' || file === 'material.pem'), `round ${round}: ${dir} holds ${files.join(', ')}`);
    }
  }
});
