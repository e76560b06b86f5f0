// The journal of challenge TXT records not yet removed: what a run leaves in it is what the next
// start removes; changes made at once share writes and none is lost.
import { readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import test from 'ava';
import { ChallengeJournal } from '../../../actors/cert/acme/challenge-journal.js';
import { tempDir } from '../../helpers/qpool.js';
import { FileDocuments } from '../../../actors/cert/store/documents.js';

test('entries added and not removed are the leftover of the next open; the file is 0600', async (t) => {
  const path = join(await tempDir(t, 'journal-'), 'challenges.json');
  const { journal, leftover } = await ChallengeJournal.open(new FileDocuments(dirname(path)));
  t.deepEqual(leftover, []);
  await journal.add({ name: '_acme-challenge.a.example.test', value: 'one' });
  await journal.add({ name: '_acme-challenge.b.example.test', value: 'two' });
  await journal.remove({ name: '_acme-challenge.a.example.test', value: 'one' });
  t.is((await stat(path)).mode & 0o777, 0o600);
  t.deepEqual((await ChallengeJournal.open(new FileDocuments(dirname(path)))).leftover, [{ name: '_acme-challenge.b.example.test', value: 'two' }]);
});

test('fifty changes at once are all on disk when each resolves', async (t) => {
  const path = join(await tempDir(t, 'journal-'), 'challenges.json');
  const { journal } = await ChallengeJournal.open(new FileDocuments(dirname(path)));
  const entries = Array.from({ length: 50 }, (_, index) => ({ name: `_acme-challenge.d${index}.example.test`, value: `v${index}` }));
  await Promise.all(entries.map((entry) => journal.add(entry)));
  t.deepEqual(JSON.parse(await readFile(path, 'utf8')), entries);
  await Promise.all(entries.slice(10).map((entry) => journal.remove(entry)));
  t.deepEqual((await ChallengeJournal.open(new FileDocuments(dirname(path)))).leftover, entries.slice(0, 10));
});

test('an unreadable journal counts as empty', async (t) => {
  const path = join(await tempDir(t, 'journal-'), 'challenges.json');
  await writeFile(path, '{not json');
  t.deepEqual((await ChallengeJournal.open(new FileDocuments(dirname(path)))).leftover, []);
  await writeFile(path, JSON.stringify([{ name: 'x' }, { name: '_acme-challenge.c.example.test', value: 'ok' }]));
  t.deepEqual((await ChallengeJournal.open(new FileDocuments(dirname(path)))).leftover, [{ name: '_acme-challenge.c.example.test', value: 'ok' }]);
});
