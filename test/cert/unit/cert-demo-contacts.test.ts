// `--demo` skips the renewal task and contacts no external service (the spec), so
// neither a renewal falling due nor notify.webhook_url in config.json reaches anything.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { ManualClock } from '../../../src/actor/clock.js';
import { certRole } from '../../../actors/cert/role.js';
import type { DomainNotice } from '../../../actors/cert/domains/notices.js';
import { certDataDir } from '../../helpers/cert-files.js';
import { day, startBook } from '../helpers/domain-book.js';

test('without its timed steps (demo), a certificate past its renewal instant and near expiry is neither renewed nor noticed', async (t) => {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const notices: DomainNotice[] = [];
  const harness = await startBook(t, { dataDir: await certDataDir(t), clock, lifetimeMs: 6 * day, scheduled: false, notify: (notice) => notices.push(notice) });
  await harness.book.add({ name: 'app', target: '203.0.113.5' });
  const issued = await harness.until('app', (view) => view.status === 'issued');
  t.true(Date.parse(issued.renewal.due_at ?? '') < clock.now() + 6 * day, 'a renewal instant is still shown');
  // Day by day, as a running process would pass them; a renewal order starts within milliseconds of its
  // wake-up (a file write), so a quiet half second after each says none started.
  for (let days = 0; days < 5; days++) {
    clock.advance(day);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  t.deepEqual(harness.issuer.orders, ['app.example.com'], 'no renewal order');
  t.deepEqual(
    notices.map((notice) => notice.event),
    ['issued'],
    'the issuance, and no expiry notice',
  );
});

test('the demo role hands no webhook to the domains actor, even with notify.webhook_url in config.json', async (t) => {
  const dataDir = await certDataDir(t);
  const config = {
    base_domain: 'demo.test',
    admin_key: 'a-demo-admin-key-long-enough-for-128-bits',
    notify: { webhook_url: 'https://hooks.example.net/secret' },
  };
  await writeFile(join(dataDir, 'config.json'), JSON.stringify(config), { mode: 0o600 });
  const specs = await certRole.actors(certRole.schema.parse({ data_dir: dataDir, demo: true }));
  const domains = specs.find((spec) => spec.kind === 'domains');
  t.like(domains?.config, { demo: true, notify: undefined });
  t.false(JSON.stringify(specs).includes('hooks.example.net'), 'the URL is in no actor config');
});
