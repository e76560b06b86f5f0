// Adding a domain and changing its target, on the DomainBook the domains actor runs (these were tests
// of helper functions in logic.ts that nothing ran; the book's own path is what users meet).
import test from 'ava';
import { ManualClock } from '../../../src/actor/clock.js';
import { OutpostError } from '../../../src/errors.js';
import { isDomainTokenShape } from '../../../actors/cert/domains/token.js';
import { certDataDir } from '../../helpers/cert-files.js';
import { day, startBook } from '../helpers/domain-book.js';

const now = Date.parse('2025-01-01T00:00:00Z');

async function codeOf(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
  } catch (error) {
    if (error instanceof OutpostError) return error.code;
    throw error;
  }
  throw new Error('expected an OutpostError');
}

test('add: label or full name, target classified, token made; bad input 400, duplicate 409', async (t) => {
  const { book } = await startBook(t, { dataDir: await certDataDir(t), clock: new ManualClock(now), lifetimeMs: 90 * day, scheduled: false });
  const view = await book.add({ name: 'App', target: '2001:db8::1' });
  t.like(view, {
    name: 'app.example.com',
    label: 'app',
    target: '2001:db8::1',
    record_type: 'AAAA',
    status: 'pending',
    created_at: '2025-01-01T00:00:00.000Z',
  });
  t.true(isDomainTokenShape(view.token));
  t.is(await codeOf(() => book.add({ name: 'app.other.org', target: '192.0.2.1' })), 'ERR_BAD_REQUEST');
  t.is(await codeOf(() => book.add({ name: 'web', target: 'not a target' })), 'ERR_BAD_REQUEST');
  const duplicate = await t.throwsAsync(book.add({ name: 'app.example.com', target: '192.0.2.1' }), { instanceOf: OutpostError });
  t.is(duplicate?.code, 'ERR_CONFLICT');
  t.is(duplicate?.message, 'app.example.com exists already');
});

test('a new target: IP -> host name -> IP, the record type follows; the domain itself is refused', async (t) => {
  const { book } = await startBook(t, { dataDir: await certDataDir(t), clock: new ManualClock(now), lifetimeMs: 90 * day, scheduled: false });
  await book.add({ name: 'app', target: '192.0.2.1' });
  t.like(await book.setTarget('app', 'Backend.Example.net'), { target: 'backend.example.net', record_type: 'CNAME' });
  t.like(await book.setTarget('app.example.com', '192.0.2.7'), { target: '192.0.2.7', record_type: 'A' });
  t.is(await codeOf(() => book.setTarget('app', 'app.example.com')), 'ERR_BAD_REQUEST');
  t.is(await codeOf(() => book.setTarget('app', 'http://backend.example.net')), 'ERR_BAD_REQUEST');
});
