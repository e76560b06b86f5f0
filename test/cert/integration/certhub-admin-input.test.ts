// Bad input to the admin API of a certhub run on Pebble + PowerDNS: every refusal is a 4xx with an
// {"error"} that names the problem, nothing reaches DNS or the data directory for it, a duplicate or
// a bad edit leaves the domain there as it was, and the process keeps serving: requests cut off
// mid-body included, a domain added afterwards is still issued.
import { readdir } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import test from 'ava';
import { startCertStack, stopCertStack } from '../../helpers/cert-stack.js';
import { certhubDataDir, startCerthub, testAdminKey } from '../../helpers/certhub.js';
import { addDomain, getDomain, powerdnsSection, recordsOf, settled, stackSections, waitForDomain } from '../../helpers/certhub-domains.js';

/** Bounds a hang of one issuance on a loaded machine; certhub-acme.test.ts issues in seconds. */
const issueDeadlineMs = 90_000;

interface Refusal {
  body: unknown;
  status: number;
  /** What the error must say: the problem and the value at fault. */
  error: RegExp;
}

const addRefusals: Refusal[] = [
  {
    body: { name: 'bad_label', target: '203.0.113.5' },
    status: 400,
    error: /name "bad_label" has the label "bad_label", but labels hold only letters, digits and hyphens/,
  },
  { body: { name: '-edge', target: '203.0.113.5' }, status: 400, error: /"-edge".*neither start nor end with a hyphen/ },
  { body: { name: 'a'.repeat(64), target: '203.0.113.5' }, status: 400, error: /longer than 63 characters \(64\)/ },
  { body: { name: 'app.other.test', target: '203.0.113.5' }, status: 400, error: /name "app\.other\.test" is not under the base domain example\.test/ },
  { body: { name: 'example.test', target: '203.0.113.5' }, status: 400, error: /is the base domain itself/ },
  { body: { name: 'a.b.example.test', target: '203.0.113.5' }, status: 400, error: /"a\.b\.example\.test" is nested/ },
  { body: { name: 'web', target: 'not a host' }, status: 400, error: /target "not a host" is neither an IP address nor a valid host name/ },
  { body: { name: 'web', target: '203.0.113.300' }, status: 400, error: /target "203\.0\.113\.300" is not a valid IPv4 address/ },
  { body: { name: 'web', target: '2001:db8::g' }, status: 400, error: /target "2001:db8::g" is not a valid IPv6 address/ },
  { body: { name: 'web', target: 'localhost' }, status: 400, error: /target "localhost".*must be fully qualified/ },
  { body: { name: 'web', target: 'web.example.test' }, status: 400, error: /a CNAME cannot point to its own name/ },
  { body: { name: 'web' }, status: 400, error: /target/ },
  { body: { name: 'web', target: '203.0.113.5', extra: 1 }, status: 400, error: /extra/ },
  { body: '{"name": "web",', status: 400, error: /JSON/ },
];

test.serial('refused adds and edits name the problem, reach neither DNS nor the data directory; a duplicate changes nothing', async (t) => {
  const stack = await startCertStack();
  try {
    const { powerdns } = stack;
    const dataDir = await certhubDataDir(t, { dns: powerdnsSection(powerdns), ...stackSections(stack) });
    const server = await startCerthub(t, dataDir, []);
    const send = (method: string, path: string, body: unknown) =>
      fetch(`${server.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${testAdminKey}`, 'content-type': 'application/json' },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
    const expectRefusal = async (method: string, path: string, { body, status, error }: Refusal) => {
      const response = await send(method, path, body);
      const label = `${method} ${JSON.stringify(body).slice(0, 60)}`;
      t.is(response.status, status, label);
      t.regex(((await response.json()) as { error: string }).error, error, label);
    };
    const zoneBefore = await powerdns.rrsets();
    for (const refusal of addRefusals) await expectRefusal('POST', 'api/admin/domains', refusal);
    t.deepEqual(await (await server.admin('api/admin/domains')).json(), { domains: [] });
    t.deepEqual(await powerdns.rrsets(), zoneBefore, 'no record was written for a refused add');
    t.deepEqual(await domainFiles(dataDir), []);

    const first = await addDomain(server, 'web', '203.0.113.5');
    const issued = await waitForDomain(server, 'web', settled, issueDeadlineMs);
    t.is(issued.status, 'issued', issued.error ?? '');
    const duplicate = await send('POST', 'api/admin/domains', { name: 'WEB.example.test.', target: '198.51.100.1' });
    t.is(duplicate.status, 409);
    t.regex(((await duplicate.json()) as { error: string }).error, /web\.example\.test exists already/);

    const editRefusals: Refusal[] = [
      {
        body: { target: 'under_score!.example.net' },
        status: 400,
        error: /target "under_score!\.example\.net" is neither an IP address nor a valid host name/,
      },
      { body: { target: '0.0.0.0' }, status: 400, error: /unspecified address/ },
      { body: { target: 'fe80::1%eth0' }, status: 400, error: /zone index/ },
      { body: { name: 'other' }, status: 400, error: /name|target/ },
    ];
    for (const refusal of editRefusals) await expectRefusal('PATCH', 'api/admin/domains/web', refusal);
    await expectRefusal('PATCH', 'api/admin/domains/nothere', { body: { target: '203.0.113.9' }, status: 404, error: /no domain nothere\.example\.test/ });
    await expectRefusal('POST', 'api/admin/domains/bad_label/rotate', { body: {}, status: 400, error: /"bad_label"/ });
    const unknownDelete = await server.admin('api/admin/domains/nothere', { method: 'DELETE' });
    t.is(unknownDelete.status, 404);

    const after = await getDomain(server, 'web');
    t.like(after, { target: '203.0.113.5', record_type: 'A', status: 'issued', token: first.token });
    t.deepEqual(await recordsOf(powerdns, 'web.example.test'), [{ name: 'web.example.test', type: 'A', contents: ['203.0.113.5'] }]);
    t.deepEqual(await domainFiles(dataDir), ['web.example.test.json']);
  } finally {
    await stopCertStack(stack);
  }
});

test.serial('requests cut off mid-body and oversized bodies do not stop the process; a domain added afterwards is issued', async (t) => {
  const stack = await startCertStack();
  try {
    const dataDir = await certhubDataDir(t, { dns: powerdnsSection(stack.powerdns), ...stackSections(stack) });
    const server = await startCerthub(t, dataDir, []);
    const { port } = new URL(server.url);
    // A body announced as 1000 bytes of which 20 arrive before the client goes away.
    for (let cut = 0; cut < 5; cut++) await cutOffRequest(Number(port));
    const oversized = await fetch(`${server.url}api/admin/domains`, {
      method: 'POST',
      headers: { authorization: `Bearer ${testAdminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'big', target: 'x'.repeat(1_000_000) }),
    });
    t.is(oversized.status, 413);
    t.is(typeof ((await oversized.json()) as { error?: unknown }).error, 'string');

    await addDomain(server, 'after', '203.0.113.11');
    const domain = await waitForDomain(server, 'after', settled, issueDeadlineMs);
    t.is(domain.status, 'issued', domain.error ?? '');
    t.deepEqual(await stack.powerdns.dig('after.example.test', 'A'), ['203.0.113.11']);
    t.is(server.child.exitCode, null, 'certhub is still running');
  } finally {
    await stopCertStack(stack);
  }
});

async function domainFiles(dataDir: string): Promise<string[]> {
  return (await readdir(join(dataDir, 'domains')).catch(() => [] as string[])).filter((file) => !file.startsWith('.')).sort();
}

/** Sends the headers and part of the body of an admin POST, then destroys the socket. */
function cutOffRequest(port: number): Promise<void> {
  return new Promise((resolve) => {
    const outgoing = request({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: '/api/admin/domains',
      headers: { authorization: `Bearer ${testAdminKey}`, 'content-type': 'application/json', 'content-length': '1000' },
    });
    outgoing.on('error', () => resolve());
    outgoing.write('{"name": "cut", "tar', () =>
      setTimeout(() => {
        outgoing.destroy();
        resolve();
      }, 50),
    );
  });
}
