// certhub run with Cloudflare as its DNS provider, through the Cloudflare double, which writes every
// record into the real PowerDNS that Pebble validates through: one provider for everything, and the
// split configuration both ways (ACME challenges on one provider, address records on the other), with
// where each record went checked on both sides. One test at a time: each starts a whole stack.
import test, { type ExecutionContext } from 'ava';
import { startCertStack, stopCertStack, type CertStack } from '../../helpers/cert-stack.js';
import { certhubDataDir, startCerthub, type RunningCerthub } from '../../helpers/certhub.js';
import {
  addDomain,
  cloudflareSection,
  fetchCertificate,
  powerdnsSection,
  recordsOf,
  settled,
  stackSections,
  waitForDomain,
} from '../../helpers/certhub-domains.js';
import { eventually } from '../../helpers/fixture-host.js';
import { opensslCheck } from '../../helpers/openssl.js';
import { startCloudflareDouble, type CloudflareDouble, type RecordChange } from '../fixtures/cloudflare/cloudflare-double.js';

/** Bounds a hang of one issuance on a loaded machine; certhub-acme.test.ts issues in seconds. */
const issueDeadlineMs = 90_000;

type Sections = (stack: CertStack, cloudflare: CloudflareDouble) => object;

/** PowerDNS, Pebble and the double in front of that PowerDNS; certhub with the DNS sections `sections` makes. */
async function withCloudflare(
  t: ExecutionContext,
  sections: Sections,
  body: (server: RunningCerthub, stack: CertStack, cloudflare: CloudflareDouble) => Promise<void>,
): Promise<void> {
  const stack = await startCertStack();
  let cloudflare: CloudflareDouble | undefined;
  try {
    cloudflare = await startCloudflareDouble({ zone: stack.powerdns.zone, powerdns: stack.powerdns });
    const dataDir = await certhubDataDir(t, { ...sections(stack, cloudflare), ...stackSections(stack) });
    await body(await startCerthub(t, dataDir, []), stack, cloudflare);
  } finally {
    await cloudflare?.close();
    await stopCertStack(stack);
  }
}

async function issue(t: ExecutionContext, server: RunningCerthub, label: string, target: string) {
  const added = await addDomain(server, label, target);
  const domain = await waitForDomain(server, label, settled, issueDeadlineMs);
  t.is(domain.status, 'issued', domain.error ?? '');
  return added;
}

const changesAt = (cloudflare: CloudflareDouble, name: string) =>
  cloudflare.changes.filter((change) => change.name === name || change.name.endsWith(`.${name}`));

/** The challenge TXT was created through the double and deleted again with the same value. */
function assertChallengeThrough(t: ExecutionContext, changes: RecordChange[], name: string): void {
  const txt = changes.filter((change) => change.type === 'TXT');
  t.is(txt.length, 2, JSON.stringify(txt));
  t.like(txt[0], { action: 'create', name: `_acme-challenge.${name}` });
  t.like(txt[1], { action: 'delete', name: `_acme-challenge.${name}`, content: txt[0]?.content });
}

test.serial(
  'dns: cloudflare: the record and the challenge go through the Cloudflare API; issued, verified, an edit to a host name replaces the A',
  async (t) => {
    await withCloudflare(
      t,
      (_stack, cloudflare) => ({ dns: cloudflareSection(cloudflare) }),
      async (server, stack, cloudflare) => {
        const name = 'cf.example.test';
        const added = await issue(t, server, 'cf', '203.0.113.20');
        const changes = changesAt(cloudflare, name);
        t.like(changes[0], { action: 'create', type: 'A', name, content: '203.0.113.20' });
        assertChallengeThrough(t, changes, name);
        t.deepEqual(
          cloudflare.records().map(({ type, name: at, content }) => ({ type, name: at, content })),
          [{ type: 'A', name, content: '203.0.113.20' }],
        );
        // The DNS side is read once the double's changes have propagated (Cloudflare's edge takes its time).
        await cloudflare.propagated();
        t.deepEqual(await stack.powerdns.dig(name, 'A'), ['203.0.113.20']);
        t.deepEqual(await recordsOf(stack.powerdns, name), [{ name, type: 'A', contents: ['203.0.113.20'] }], 'no challenge TXT is left in DNS');

        const response = await fetchCertificate(server, 'cf', added.token);
        t.is(response.status, 200);
        const material = (await response.json()) as { cert_pem: string; chain_pem: string; key_pem: string };
        const verdict = await opensslCheck({ certPem: material.cert_pem, chainPem: material.chain_pem, keyPem: material.key_pem }, await stack.pebble.root());
        t.regex(verdict.verify, /: OK$/);
        t.true(verdict.keyMatches);

        // Cloudflare refuses a CNAME beside an A (81053): the A must go.
        t.is((await server.admin('api/admin/domains/cf', { method: 'PATCH', body: { target: 'origin.example.net' } })).status, 200);
        const replaced = await eventually(
          async () => JSON.stringify(await recordsOf(stack.powerdns, name)) === JSON.stringify([{ name, type: 'CNAME', contents: ['origin.example.net.'] }]),
          30_000,
          100,
        );
        t.true(replaced, JSON.stringify(await recordsOf(stack.powerdns, name)));
        t.deepEqual(
          cloudflare.records().map(({ type, content }) => ({ type, content })),
          [{ type: 'CNAME', content: 'origin.example.net' }],
        );
      },
    );
  },
);

test.serial('split: dns_acme on Cloudflare, dns_records on PowerDNS: only the challenge goes through Cloudflare', async (t) => {
  await withCloudflare(
    t,
    (stack, cloudflare) => ({ dns_acme: cloudflareSection(cloudflare), dns_records: powerdnsSection(stack.powerdns) }),
    async (server, stack, cloudflare) => {
      const name = 'acme-cf.example.test';
      await issue(t, server, 'acme-cf', '203.0.113.21');
      const changes = changesAt(cloudflare, name);
      assertChallengeThrough(t, changes, name);
      t.deepEqual(
        changes.filter((change) => change.type !== 'TXT'),
        [],
        'the address record did not go through Cloudflare',
      );
      t.deepEqual(cloudflare.records(), []);
      await cloudflare.propagated();
      t.deepEqual(
        await recordsOf(stack.powerdns, name),
        [{ name, type: 'A', contents: ['203.0.113.21'] }],
        'the A record is in PowerDNS, no challenge TXT is left',
      );
    },
  );
});

test.serial('split: dns_acme on PowerDNS, dns_records on Cloudflare: only the address record goes through Cloudflare', async (t) => {
  await withCloudflare(
    t,
    (stack, cloudflare) => ({ dns_acme: powerdnsSection(stack.powerdns), dns_records: cloudflareSection(cloudflare) }),
    async (server, stack, cloudflare) => {
      const name = 'records-cf.example.test';
      await issue(t, server, 'records-cf', '2001:db8::21');
      t.deepEqual(changesAt(cloudflare, name), [{ action: 'create', type: 'AAAA', name, content: '2001:db8::21' }], 'no challenge TXT went through Cloudflare');
      await cloudflare.propagated();
      t.deepEqual(await recordsOf(stack.powerdns, name), [{ name, type: 'AAAA', contents: ['2001:db8::21'] }], 'no challenge TXT is left in PowerDNS');
      await server.waitFor(/dns: records-cf\.example\.test AAAA 2001:db8::21 \(cloudflare\)/);
    },
  );
});

test.serial("dns: cloudflare: a 429 with Retry-After sets the domain's next attempt at the end of the block, not at the 2-minute backoff", async (t) => {
  await withCloudflare(
    t,
    (_stack, cloudflare) => ({ dns: cloudflareSection(cloudflare) }),
    async (server, _stack, cloudflare) => {
      cloudflare.useUpBudget();
      const refusedFrom = Date.now();
      await addDomain(server, 'limited', '203.0.113.31');
      const domain = await waitForDomain(server, 'limited', settled, issueDeadlineMs);
      t.is(domain.status, 'error');
      t.regex(
        domain.error ?? '',
        /cloudflare: rate limited \(HTTP 429, .*1,200 requests per 5 minutes per user, across all of its tokens\), retry after \d+ s/,
      );
      // The double blocks for 5 minutes from the first refused request; the backoff alone would say 96-120 s.
      const blockEnds = refusedFrom + 300_000;
      t.true(
        Date.parse(domain.next_attempt_at ?? '') >= blockEnds - 2000,
        `next attempt ${domain.next_attempt_at ?? 'none'}, block ends ${new Date(blockEnds).toISOString()}`,
      );
      t.true(
        cloudflare.requests.every((request) => request.status === 429),
        'nothing got through the block',
      );
    },
  );
});

test.serial(
  'dns: cloudflare: an add over an A record someone else made is refused with 409 naming it; with "adopt": true certhub takes it over, and deletes only its own record on removal',
  async (t) => {
    await withCloudflare(
      t,
      (_stack, cloudflare) => ({ dns: cloudflareSection(cloudflare) }),
      async (server, stack, cloudflare) => {
        const name = 'shop.example.test';
        const made = await fetch(`${cloudflare.apiUrl}/zones/${cloudflare.zoneId}/dns_records`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${cloudflare.token}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ type: 'A', name, content: '198.51.100.7', ttl: 120 }),
        });
        t.is(made.status, 200);
        const refused = await server.admin('api/admin/domains', { method: 'POST', body: { name: 'shop', target: '203.0.113.30' } });
        t.is(refused.status, 409);
        t.regex(((await refused.json()) as { error: string }).error, /A 198\.51\.100\.7.*adopt/);
        t.is((await server.admin('api/admin/domains/shop')).status, 404, 'a refused add leaves no domain');
        await cloudflare.propagated();
        t.deepEqual(await stack.powerdns.dig(name, 'A'), ['198.51.100.7']);

        const adopted = await server.admin('api/admin/domains', { method: 'POST', body: { name: 'shop', target: '203.0.113.30', adopt: true } });
        t.is(adopted.status, 201, await adopted.clone().text());
        const domain = await waitForDomain(server, 'shop', settled, issueDeadlineMs);
        t.is(domain.status, 'issued', domain.error ?? '');
        await cloudflare.propagated();
        t.deepEqual(await stack.powerdns.dig(name, 'A'), ['203.0.113.30']);

        // Someone adds an AAAA beside certhub's A: removing the domain deletes the A only.
        const beside = await fetch(`${cloudflare.apiUrl}/zones/${cloudflare.zoneId}/dns_records`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${cloudflare.token}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ type: 'AAAA', name, content: '2001:db8::30', ttl: 120 }),
        });
        t.is(beside.status, 200);
        t.is((await server.admin('api/admin/domains/shop', { method: 'DELETE' })).status, 204);
        t.true(await eventually(async () => (await stack.powerdns.dig(name, 'A')).length === 0, 10_000), "certhub's A is deleted");
        await cloudflare.propagated();
        t.deepEqual(await stack.powerdns.dig(name, 'AAAA'), ['2001:db8::30']);
      },
    );
  },
);
