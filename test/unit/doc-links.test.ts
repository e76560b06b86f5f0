// Every relative link in README.md, CONTRIBUTING.md and docs/ reaches a file, and every #anchor a
// heading of the page it names.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import test from 'ava';
import { anchorsOf, headingSlug, readDocuments, relativeLinksOf } from '../helpers/documents.js';
import { projectPath } from '../helpers/process.js';

test('a heading slug is the one GitHub makes', (t) => {
  t.is(headingSlug('A first run with Pebble and PowerDNS'), 'a-first-run-with-pebble-and-powerdns');
  t.is(headingSlug('`fetch --watch` and SIGHUP'), 'fetch---watch-and-sighup');
  t.is(headingSlug('Health, readiness (and /metrics)'), 'health-readiness-and-metrics');
  t.deepEqual([...anchorsOf('# A\n## A\n```\n# not a heading\n```\n')], ['a', 'a-1']);
});

test('links inside code are not links', (t) => {
  t.deepEqual(relativeLinksOf('[a](b.md) `[c](d.md)` [e](https://x.test/) [f](#g)\n```\n[h](i.md)\n```\n'), ['b.md', '#g']);
});

test('every relative link in the documents resolves', async (t) => {
  const broken: string[] = [];
  let checked = 0;
  for (const document of await readDocuments()) {
    for (const link of relativeLinksOf(document.text)) {
      checked++;
      const [path = '', anchor] = link.split('#');
      const target = path === '' ? projectPath(document.path) : join(dirname(projectPath(document.path)), decodeURIComponent(path));
      if (!existsSync(target)) {
        broken.push(`${document.path}: ${link} (no such file)`);
        continue;
      }
      if (anchor === undefined || statSync(target).isDirectory()) continue;
      if (!anchorsOf(readFileSync(target, 'utf8')).has(anchor)) broken.push(`${document.path}: ${link} (no such heading)`);
    }
  }
  t.deepEqual(broken, []);
  t.true(checked > 0);
});
