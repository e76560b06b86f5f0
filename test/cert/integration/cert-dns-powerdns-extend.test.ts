// EXTEND and PRUNE on the PowerDNS servers that take them. Debian ships PowerDNS
// 4.7.3, which has neither, and no 4.9.12 or 5.0.2 is available here: so the request bodies certhub
// sends to a newer server are checked against a small local HTTP recorder that answers as the API does
// (the shape only), and the real 4.7.3 is checked to be recognised and written to with REPLACE.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import { createDnsProvider } from '../../../actors/cert/dns/providers/create.js';
import { withPowerDns } from '../../helpers/cert-stack.js';

interface RecordedRequest {
  method: string;
  path: string;
  body: unknown;
}

const zone = 'example.test';
const apiKey = 'recorder-key';

/** Answers the PowerDNS API calls certhub makes as a server of `version` would, and keeps each request. */
async function withRecorder(version: string, body: (url: string, requests: RecordedRequest[]) => Promise<void>): Promise<void> {
  const requests: RecordedRequest[] = [];
  const answer = (request: IncomingMessage, response: ServerResponse, text: string) => {
    const path = request.url ?? '';
    requests.push({ method: request.method ?? '', path, body: text === '' ? null : JSON.parse(text) });
    const json = (status: number, value: object) => response.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(value));
    if (request.headers['x-api-key'] !== apiKey) return json(401, { error: 'Unauthorized' });
    if (request.method === 'GET' && path === '/api/v1/servers/localhost')
      return json(200, { type: 'Server', id: 'localhost', daemon_type: 'authoritative', version });
    if (request.method === 'GET' && path.startsWith(`/api/v1/servers/localhost/zones/${zone}.`))
      return json(200, { name: `${zone}.`, kind: 'Native', soa_edit_api: 'DEFAULT', rrsets: [] });
    if (request.method === 'PATCH') return response.writeHead(204).end();
    return json(404, { error: 'Not Found' });
  };
  const server = createServer((request, response) => {
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (text += chunk));
    request.on('end', () => answer(request, response, text));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    await body(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

const patches = (requests: RecordedRequest[]) => requests.filter((request) => request.method === 'PATCH').map((request) => request.body);
const rrsetReads = (requests: RecordedRequest[]) =>
  requests.filter((request) => request.method === 'GET' && request.path.includes('/zones/') && !request.path.endsWith('?rrsets=false'));

for (const version of ['4.9.12', '5.0.2', '5.1.0']) {
  test(`PowerDNS ${version}: a challenge value is added with one EXTEND and removed with one PRUNE, nothing read or rewritten`, async (t) => {
    await withRecorder(version, async (url, requests) => {
      const provider = createDnsProvider({ provider: 'powerdns', server_url: url, api_token: apiKey, zone });
      const name = `_acme-challenge.app.${zone}`;
      await provider.addTxt(name, 'token-"value"');
      await provider.removeTxt(name, 'token-"value"');
      const record = { content: '"token-\\"value\\""', disabled: false };
      t.deepEqual(patches(requests), [
        { rrsets: [{ name: `${name}.`, type: 'TXT', changetype: 'EXTEND', ttl: 60, records: [record] }] },
        { rrsets: [{ name: `${name}.`, type: 'TXT', changetype: 'PRUNE', ttl: 60, records: [record] }] },
      ]);
      t.deepEqual(rrsetReads(requests), [], 'the RRset is not read: the server adds and removes the one value');
      t.is(requests.filter((request) => request.path === '/api/v1/servers/localhost').length, 1, 'the version is asked once');
      t.deepEqual(await provider.notes?.(), [`powerdns: server ${version} at ${url}: challenge TXT values are added and removed one by one (EXTEND, PRUNE)`]);
    });
  });
}

test('PowerDNS 4.9.11: a challenge value is written by read, modify, REPLACE', async (t) => {
  await withRecorder('4.9.11', async (url, requests) => {
    const provider = createDnsProvider({ provider: 'powerdns', server_url: url, api_token: apiKey, zone });
    const name = `_acme-challenge.app.${zone}`;
    await provider.addTxt(name, 'token-value');
    t.deepEqual(patches(requests), [
      { rrsets: [{ name: `${name}.`, type: 'TXT', changetype: 'REPLACE', ttl: 60, records: [{ content: '"token-value"', disabled: false }] }] },
    ]);
    t.is(rrsetReads(requests).length, 1);
  });
});

test('the real PowerDNS 4.7.3 is recognised: values go by REPLACE and the challenges are served', withPowerDns, async (t, powerdns) => {
  const provider = createDnsProvider({ provider: 'powerdns', server_url: powerdns.apiUrl, api_token: powerdns.apiKey, zone: powerdns.zone });
  t.deepEqual(await provider.notes?.(), [
    `powerdns: server 4.7.3 at ${powerdns.apiUrl}: challenge TXT values are written by read, modify, REPLACE (EXTEND and PRUNE come with 4.9.12 and 5.0.2)`,
  ]);
  const name = `_acme-challenge.www.${powerdns.zone}`;
  await provider.addTxt(name, 'first');
  await provider.addTxt(name, 'second');
  t.deepEqual((await powerdns.dig(name, 'TXT')).sort(), ['"first"', '"second"']);
  await provider.removeTxt(name, 'first');
  t.deepEqual(await powerdns.dig(name, 'TXT'), ['"second"']);
  await provider.removeTxt(name, 'second');
  t.deepEqual(await powerdns.dig(name, 'TXT'), []);
});
