// The build bundles what Node starts a process or a thread with (src/build/bundle.ts): every
// executable, and every thread entry, site and job module that an actor kind, a site or a job declaration names. A
// declaration the bundler's search missed would still run, unbundled and slow to start: this test
// finds every declaration by loading it, and reads the file it names.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import test from 'ava';
import { bundleMarker } from '../../src/build/bundle.js';
import { projectPath } from '../helpers/process.js';

function isBundle(file: string): boolean {
  const lines = readFileSync(file, 'utf8').split('\n', 2);
  return lines[0] === bundleMarker || (lines[0]!.startsWith('#!') && lines[1] === bundleMarker);
}

/** The modules of dist/ that declare actor kinds, sites or jobs. */
function declarationModules(): string[] {
  const dist = projectPath('dist');
  return readdirSync(dist, { recursive: true, encoding: 'utf8' })
    .filter((file) => !file.startsWith('test/') && !file.startsWith('_chunks/') && /(^|\/)(kind|jobs|operations-site-kind)\.js$/.test(file))
    .map((file) => join(dist, file));
}

test('every executable is a bundle', (t) => {
  const bins = readdirSync(projectPath('dist/bin')).filter((file) => file.endsWith('.js'));
  t.true(bins.length >= 6);
  for (const bin of bins) t.true(isBundle(projectPath(`dist/bin/${bin}`)), bin);
});

test('every thread entry, site and job module a declaration names is a bundle', async (t) => {
  const entries = new Set<string>();
  for (const module of declarationModules()) {
    for (const declared of Object.values((await import(pathToFileURL(module).href)) as Record<string, unknown>)) {
      if (typeof declared === 'object' && declared !== null && 'entry' in declared && declared.entry instanceof URL) entries.add(fileURLToPath(declared.entry));
    }
  }
  // 12 actor kinds, 5 role sites, the operations site, the http front and 2 jobs: fewer means the search above broke.
  t.true(entries.size >= 21, `${entries.size} declarations found`);
  for (const entry of entries) t.true(isBundle(entry), entry);
});

test('the modules the bundles are made of stay as tsc wrote them, for the tests that import them', (t) => {
  t.false(isBundle(projectPath('dist/src/actor/supervisor.js')));
  t.false(isBundle(projectPath('dist/actors/qpool/pool/logic.js')));
});
