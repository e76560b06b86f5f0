// Taking over a domain's records on a target change, as after an upgrade: records an
// earlier certhub wrote carry no mark and read as someone else's. A PATCH of the target is refused with
// 409 naming them, the domain and the record left as they were; with "adopt": true certhub marks them,
// replaces them with the new target, and deletes them with the domain. Against real PowerDNS, and the
// Cloudflare double writing into it; Pebble issues through the same PowerDNS. One stack at a time.
import test, { type ExecutionContext } from 'ava';
import { startCertStack, stopCertStack, type CertStack } from '../../helpers/cert-stack.js';
import { certhubDataDir, startCerthub, type RunningCerthub } from '../../helpers/certhub.js';
import { addDomain, cloudflareSection, getDomain, powerdnsSection, settled, stackSections, waitForDomain } from '../../helpers/certhub-domains.js';
import { eventually } from '../../helpers/fixture-host.js';
import { startCloudflareDouble, type CloudflareDouble } from '../fixtures/cloudflare/cloudflare-double.js';

/** Bounds a hang of one issuance or record change on a loaded machine; it is not a timing assertion. */
const deadlineMs = 90_000;
const name = 'legacy.example.test';

interface Provider {
  section(stack: CertStack): object;
  /** Rewrites the domain's A record as a certhub from before the mark left it: the same content, no mark. */
  dropMark(stack: CertStack): Promise<void>;
  /** Whether the A record at `name` carries certhub's mark. */
  marked(stack: CertStack): Promise<boolean>;
}

function powerdnsProvider(): Provider {
  const zoneUrl = (stack: CertStack) => `${stack.powerdns.apiUrl}/api/v1/servers/localhost/zones/${stack.powerdns.zone}.`;
  const headers = (stack: CertStack) => ({ 'X-API-Key': stack.powerdns.apiKey, 'Content-Type': 'application/json' });
  return {
    section: (stack) => ({ dns: powerdnsSection(stack.powerdns) }),
    async dropMark(stack) {
      // A REPLACE with an empty comments list removes the RRset's comments (PowerDNS's RRSet schema).
      const rrset = { name: `${name}.`, type: 'A', ttl: 60, changetype: 'REPLACE', records: [{ content: '203.0.113.40', disabled: false }], comments: [] };
      const response = await fetch(zoneUrl(stack), { method: 'PATCH', headers: headers(stack), body: JSON.stringify({ rrsets: [rrset] }) });
      if (response.status !== 204) throw new Error(`PowerDNS refused the unmarked record: ${await response.text()}`);
    },
    async marked(stack) {
      const zone = (await (await fetch(zoneUrl(stack), { headers: headers(stack) })).json()) as {
        rrsets: { name: string; type: string; comments: { account: string }[] }[];
      };
      return zone.rrsets.some((rrset) => rrset.name === `${name}.` && rrset.type === 'A' && rrset.comments.some((comment) => comment.account === 'certhub'));
    },
  };
}

function cloudflareProvider(cloudflare: () => CloudflareDouble): Provider {
  const recordA = () =>
    cloudflare()
      .records()
      .find((record) => record.name === name && record.type === 'A');
  return {
    section: () => ({ dns: cloudflareSection(cloudflare()) }),
    async dropMark() {
      const record = recordA();
      if (record === undefined) throw new Error(`no A record at ${name} in the double`);
      // A PUT drops the record's comment, as Cloudflare's does.
      const response = await fetch(`${cloudflare().apiUrl}/zones/${cloudflare().zoneId}/dns_records/${record.id}`, {
        method: 'PUT',
        headers: { Authorization: `Bearer ${cloudflare().token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ type: 'A', name, content: record.content, ttl: record.ttl }),
      });
      if (!response.ok) throw new Error(`the double refused the unmarked record: ${await response.text()}`);
    },
    marked: () => Promise.resolve(recordA()?.comment?.includes('managed by certhub') === true),
  };
}

async function adoptOnTargetChange(t: ExecutionContext, server: RunningCerthub, stack: CertStack, provider: Provider): Promise<void> {
  await addDomain(server, 'legacy', '203.0.113.40');
  const issued = await waitForDomain(server, 'legacy', settled, deadlineMs);
  t.is(issued.status, 'issued', issued.error ?? '');
  await provider.dropMark(stack);
  t.false(await provider.marked(stack));

  const refused = await server.admin('api/admin/domains/legacy', { method: 'PATCH', body: { target: '203.0.113.41' } });
  t.is(refused.status, 409);
  t.regex(
    ((await refused.json()) as { error: string }).error,
    /legacy\.example\.test already has address records certhub did not create \(A 203\.0\.113\.40\).*"adopt": true/,
  );
  t.like(await getDomain(server, 'legacy'), { target: '203.0.113.40' }, 'a refused change leaves the domain as it was');
  t.deepEqual(await stack.powerdns.dig(name, 'A'), ['203.0.113.40']);

  const adopted = await server.admin('api/admin/domains/legacy', { method: 'PATCH', body: { target: '203.0.113.41', adopt: true } });
  t.is(adopted.status, 200, await adopted.clone().text());
  t.like(await adopted.json(), { target: '203.0.113.41', record_type: 'A' });
  t.true(
    await eventually(async () => JSON.stringify(await stack.powerdns.dig(name, 'A')) === '["203.0.113.41"]', deadlineMs, 100),
    'the adopted record is replaced by the new target',
  );
  t.true(await provider.marked(stack), "the record is certhub's now");

  t.is((await server.admin('api/admin/domains/legacy', { method: 'DELETE' })).status, 204);
  t.true(await eventually(async () => (await stack.powerdns.dig(name, 'A')).length === 0, deadlineMs, 100), 'and is deleted with the domain');
}

test.serial(
  'powerdns: a target change over records without certhub\'s mark is refused with 409 naming them; with "adopt": true certhub takes them over',
  async (t) => {
    const stack = await startCertStack();
    try {
      const provider = powerdnsProvider();
      const server = await startCerthub(t, await certhubDataDir(t, { ...provider.section(stack), ...stackSections(stack) }), []);
      await adoptOnTargetChange(t, server, stack, provider);
    } finally {
      await stopCertStack(stack);
    }
  },
);

test.serial(
  'cloudflare: a target change over records without certhub\'s mark is refused with 409 naming them; with "adopt": true certhub takes them over',
  async (t) => {
    const stack = await startCertStack();
    let cloudflare: CloudflareDouble | undefined;
    try {
      const double = await startCloudflareDouble({ zone: stack.powerdns.zone, powerdns: stack.powerdns });
      cloudflare = double;
      const provider = cloudflareProvider(() => double);
      const server = await startCerthub(t, await certhubDataDir(t, { ...provider.section(stack), ...stackSections(stack) }), []);
      await adoptOnTargetChange(t, server, stack, provider);
    } finally {
      await cloudflare?.close();
      await stopCertStack(stack);
    }
  },
);
