// The Cloudflare quirks the provider must live with, as the double reproduces them: lists paged small,
// 81058 for a record already there, A/CNAME conflicts, a DELETE with a Content-Type and no body, target
// changes through the batch endpoint, comment and tags kept by PATCH and dropped by PUT.
import test from 'ava';
import { createDnsProvider } from '../../../actors/cert/dns/providers/create.js';
import { CloudflareProvider } from '../../../actors/cert/dns/providers/cloudflare.js';
import { ownerMark } from '../../../actors/cert/dns/providers/provider.js';
import { defaultPropagationMs, startCloudflareDouble, type CloudflareDouble } from '../fixtures/cloudflare/cloudflare-double.js';
import { withProvider } from '../helpers/dns-provider.js';
import { withPowerDns } from '../../helpers/cert-stack.js';

test('the double: a change is answered at once and reaches the DNS side only after its propagation delay', withPowerDns, async (t, powerdns) => {
  const cloudflare = await startCloudflareDouble({ zone: powerdns.zone, powerdns });
  t.teardown(() => cloudflare.close());
  const provider = createDnsProvider({ provider: 'cloudflare', api_token: cloudflare.token, zone_id: cloudflare.zoneId, api_url: cloudflare.apiUrl });
  const name = `_acme-challenge.slow.${powerdns.zone}`;
  const started = Date.now();
  await provider.addTxt(name, 'later');
  t.deepEqual(
    (await provider.list(name)).map((record) => record.content),
    ['later'],
    'the API shows it at once',
  );
  if (Date.now() - started < defaultPropagationMs / 2) t.deepEqual(await powerdns.dig(name, 'TXT'), [], 'the DNS side does not, yet');
  await cloudflare.propagated();
  t.true(Date.now() - started >= defaultPropagationMs / 2);
  t.deepEqual(await powerdns.dig(name, 'TXT'), ['"later"']);
});

test('the double: a token without DNS Write verifies and reads, and every change is refused 403 with 10000', withPowerDns, async (t, powerdns) => {
  const cloudflare = await startCloudflareDouble({ zone: powerdns.zone, powerdns });
  t.teardown(() => cloudflare.close());
  const call = async (path: string, init: RequestInit = {}) => {
    const response = await fetch(`${cloudflare.apiUrl}${path}`, {
      ...init,
      headers: { Authorization: `Bearer ${cloudflare.readOnlyToken}`, 'Content-Type': 'application/json' },
    });
    return { status: response.status, body: (await response.json()) as { success: boolean; result: { status?: string } | null; errors: unknown[] } };
  };
  t.like(await call('/user/tokens/verify'), { status: 200, body: { success: true, result: { status: 'active' } } });
  t.like(await call(`/zones/${cloudflare.zoneId}/dns_records?type=TXT`), { status: 200, body: { success: true } });
  const refused = await call(`/zones/${cloudflare.zoneId}/dns_records`, {
    method: 'POST',
    body: JSON.stringify({ type: 'TXT', name: `x.${powerdns.zone}`, content: 'x', ttl: 120 }),
  });
  t.is(refused.status, 403);
  t.deepEqual(refused.body.errors, [{ code: 10000, message: 'Authentication error' }]);
  t.deepEqual(cloudflare.records(), []);
  const readOnly = new CloudflareProvider({ apiToken: cloudflare.readOnlyToken, zoneId: cloudflare.zoneId, apiUrl: cloudflare.apiUrl, timeoutMs: 5000 });
  t.regex(
    (await readOnly.missingDnsWrite()) ?? '',
    /may not change its DNS records \(HTTP 403, 10000 Authentication error\): give it the DNS Write permission/,
  );
  const writer = new CloudflareProvider({ apiToken: cloudflare.token, zoneId: cloudflare.zoneId, apiUrl: cloudflare.apiUrl, timeoutMs: 5000 });
  t.is(await writer.missingDnsWrite(), undefined);
  t.deepEqual(cloudflare.records(), [], 'the check removes its record');
});

test(
  'listings are walked page by page',
  withProvider,
  'cloudflare',
  async (t, { provider, powerdns, cloudflare }) => {
    const name = `_acme-challenge.many.${powerdns.zone}`;
    const values = ['v1', 'v2', 'v3', 'v4', 'v5'];
    for (const value of values) await provider.addTxt(name, value);
    t.deepEqual((await provider.list(name)).map((record) => record.content).sort(), values);
    t.true(
      cloudflare!.requests.some((request) => request.path.includes('page=3')),
      'a third page was asked for',
    );
    // The last value lives on the last page: removing it needs the whole walk.
    await provider.removeTxt(name, 'v5');
    t.deepEqual((await powerdns.dig(name, 'TXT')).sort(), ['"v1"', '"v2"', '"v3"', '"v4"']);
  },
  { pageSize: 2 },
);

test('a TXT value already there (81058) counts as added when it is ours', withProvider, 'cloudflare', async (t, { provider, powerdns, cloudflare }) => {
  const name = `_acme-challenge.dup.${powerdns.zone}`;
  const create = (content: string) =>
    fetch(`${cloudflare!.apiUrl}/zones/${cloudflare!.zoneId}/dns_records`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${cloudflare!.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ type: 'TXT', name, content, ttl: 120 }),
    });
  t.is((await create('"ours"')).status, 200);
  const duplicate = (await (await create('ours')).json()) as { errors: { code: number }[] };
  t.is(duplicate.errors[0]?.code, 81058, 'unquoted and quoted content are one value');
  await provider.addTxt(name, 'ours');
  t.is(cloudflare!.records().filter((record) => record.name === name).length, 1);
});

test(
  'an A record over a CNAME is refused (81054) and the provider deletes the CNAME first',
  withProvider,
  'cloudflare',
  async (t, { provider, powerdns, cloudflare }) => {
    const name = `conflict.${powerdns.zone}`;
    const post = async (body: object) =>
      (await (
        await fetch(`${cloudflare!.apiUrl}/zones/${cloudflare!.zoneId}/dns_records`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${cloudflare!.token}`, 'Content-Type': 'application/json' },
          body: JSON.stringify(body),
        })
      ).json()) as { success: boolean; errors: { code: number }[] };
    t.true((await post({ type: 'CNAME', name, content: 'elsewhere.example.org', ttl: 120 })).success);
    t.is((await post({ type: 'A', name, content: '203.0.113.5', ttl: 120 })).errors[0]?.code, 81054);
    t.is((await post({ type: 'CNAME', name, content: 'other.example.org', ttl: 120 })).errors[0]?.code, 81053);
    // The CNAME is someone else's: certhub replaces it only once adopted.
    await provider.claimAddress(name, true);
    await provider.setAddress(name, '203.0.113.5');
    t.deepEqual(await powerdns.dig(name, 'CNAME'), []);
    t.deepEqual(await powerdns.dig(name, 'A'), ['203.0.113.5']);
  },
);

test(
  'a DELETE with a Content-Type and no body is refused (6003); the provider sends none',
  withProvider,
  'cloudflare',
  async (t, { provider, powerdns, cloudflare }) => {
    const name = `_acme-challenge.del.${powerdns.zone}`;
    await provider.addTxt(name, 'value');
    const [record] = cloudflare!.records();
    const refused = await fetch(`${cloudflare!.apiUrl}/zones/${cloudflare!.zoneId}/dns_records/${record!.id}`, {
      method: 'DELETE',
      headers: { Authorization: `Bearer ${cloudflare!.token}`, 'Content-Type': 'application/json' },
    });
    t.is(refused.status, 400);
    t.is(((await refused.json()) as { errors: { code: number }[] }).errors[0]?.code, 6003);
    await provider.removeTxt(name, 'value');
    t.deepEqual(cloudflare!.records(), []);
    const deletes = cloudflare!.requests.filter((request) => request.method === 'DELETE' && request.status === 200);
    t.is(deletes.length, 1);
    t.is(deletes[0]?.contentType, undefined);
  },
);

/** A call to the double's API, answered with its envelope. */
async function cloudflareApi(cloudflare: CloudflareDouble, method: string, path: string, body?: object) {
  const response = await fetch(`${cloudflare.apiUrl}/zones/${cloudflare.zoneId}${path}`, {
    method,
    headers: { Authorization: `Bearer ${cloudflare.token}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return {
    status: response.status,
    envelope: (await response.json()) as { success: boolean; errors: { code: number }[]; result: { id: string; comment: string | null; tags: string[] } },
  };
}

test("the double: PUT drops a record's comment and tags, PATCH keeps them", withProvider, 'cloudflare', async (t, { powerdns, cloudflare }) => {
  const name = `noted.${powerdns.zone}`;
  const made = await cloudflareApi(cloudflare!, 'POST', '/dns_records', {
    type: 'A',
    name,
    content: '203.0.113.5',
    ttl: 120,
    comment: 'web tier',
    tags: ['team:web'],
  });
  const id = made.envelope.result.id;
  const patched = await cloudflareApi(cloudflare!, 'PATCH', `/dns_records/${id}`, { content: '203.0.113.6' });
  t.like(patched.envelope.result, { comment: 'web tier', tags: ['team:web'] });
  const put = await cloudflareApi(cloudflare!, 'PUT', `/dns_records/${id}`, { type: 'A', name, content: '203.0.113.7', ttl: 120 });
  t.like(put.envelope.result, { comment: null, tags: [] });
});

test(
  'a target change is one batch request (no DELETE alone, no moment without a record) and keeps comment and tags',
  withProvider,
  'cloudflare',
  async (t, { provider, powerdns, cloudflare }) => {
    const name = `moved.${powerdns.zone}`;
    await provider.setAddress(name, '203.0.113.5');
    const [record] = cloudflare!.records().filter((stored) => stored.name === name);
    // The admin's note goes beside certhub's mark (the comment says whose the record is).
    const noted = `${ownerMark}; kept by the admin`;
    await cloudflareApi(cloudflare!, 'PATCH', `/dns_records/${record!.id}`, { comment: noted, tags: ['owner:ops'] });
    await provider.setAddress(name, '203.0.113.9');
    t.like(
      cloudflare!.records().find((stored) => stored.name === name),
      { id: record!.id, content: '203.0.113.9', comment: noted, tags: ['owner:ops'] },
    );
    const before = cloudflare!.requests.length;
    await provider.setAddress(name, 'elsewhere.example.org');
    const writes = cloudflare!.requests.slice(before).filter((request) => request.method !== 'GET');
    t.deepEqual(
      writes.map(({ method, path, status }) => ({ method, path: path.replace(/^.*\/dns_records/, '/dns_records'), status })),
      [{ method: 'POST', path: '/dns_records/batch', status: 200 }],
    );
    t.deepEqual(await powerdns.dig(name, 'CNAME'), ['elsewhere.example.org.']);
    t.deepEqual(
      cloudflare!
        .records()
        .filter((stored) => stored.name === name)
        .map((stored) => stored.type),
      ['CNAME'],
      'the A went in the same batch',
    );
  },
);

test('the double: a batch is all or none', withProvider, 'cloudflare', async (t, { powerdns, cloudflare }) => {
  const name = `atomic.${powerdns.zone}`;
  const made = await cloudflareApi(cloudflare!, 'POST', '/dns_records', { type: 'A', name, content: '203.0.113.5', ttl: 120 });
  const refused = await cloudflareApi(cloudflare!, 'POST', '/dns_records/batch', {
    deletes: [{ id: made.envelope.result.id }],
    posts: [{ type: 'A', name, content: 'not-an-address', ttl: 120 }],
  });
  t.is(refused.status, 400);
  t.deepEqual(
    cloudflare!.records().map((record) => record.content),
    ['203.0.113.5'],
    'the delete was undone with the refused post',
  );
});
