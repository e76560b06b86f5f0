// The security headers of the real pages (dist/ui/<role>, as the fronts serve them) and what makes
// their policy possible: no inline script, style or event handler in any page.
import { readFile } from 'node:fs/promises';
import test from 'ava';
import { contentSecurityPolicy } from '../../src/http/security-headers.js';
import { loadStaticAssets, serveStatic } from '../../src/http/static.js';
import { projectPath } from '../helpers/process.js';
import { withServer } from '../helpers/with-server.js';

const roles = ['monitor', 'qpool', 'speedtest'];

test(
  'every page is served with its content security policy, no framing, no referrer and no sniffing',
  withServer,
  async ({ router }) => {
    for (const role of roles) serveStatic(router, await loadStaticAssets(projectPath(`dist/ui/${role}`)), `/${role}`);
  },
  async (t, { url }) => {
    for (const role of roles) {
      const page = await fetch(`${url}/${role}/`);
      t.is(page.status, 200, role);
      const policy = page.headers.get('content-security-policy') ?? '';
      t.is(policy, contentSecurityPolicy, role);
      t.regex(policy, /frame-ancestors 'none'/);
      t.regex(policy, /script-src 'self'(;|$)/, 'no inline or eval script');
      t.notRegex(policy, /unsafe/);
      t.is(page.headers.get('referrer-policy'), 'no-referrer', role);
      t.is(page.headers.get('x-content-type-options'), 'nosniff', role);
      const html = await page.text();
      for (const [, asset] of html.matchAll(/(?:src|href)="\.\/([^"]+)"/g)) {
        const file = await fetch(`${url}/${role}/${asset}`);
        t.is(file.status, 200, asset);
        t.is(file.headers.get('x-content-type-options'), 'nosniff', asset);
        t.is(file.headers.get('content-security-policy'), null, `${asset} is no document`);
      }
    }
  },
);

test('no page has inline script, inline style or an event handler attribute', async (t) => {
  for (const role of roles) {
    const html = await readFile(projectPath(`dist/ui/${role}/index.html`), 'utf8');
    const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map(([tag]) => tag);
    t.true(scripts.length > 0, role);
    for (const tag of scripts) t.regex(tag, /\bsrc="\.\/[^"]+\.js"/, `${role}: ${tag}`);
    t.notRegex(html, /<style\b/i, role);
    t.notRegex(html, /\sstyle=/i, role);
    t.notRegex(html, /\son[a-z]+=/i, role);
    t.notRegex(html, /javascript:/i, role);
  }
});
