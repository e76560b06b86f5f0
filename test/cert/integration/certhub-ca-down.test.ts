// A CA that cannot be reached when certhub starts: certhub starts anyway and serves (the ACME account
// is opened on first need), and an order shows why it failed and waits for its retry.
import test from 'ava';
import { reservePort } from '../../../src/http/port.js';
import { withPowerDns } from '../../helpers/cert-stack.js';
import { certhubDataDir, startCerthub } from '../../helpers/certhub.js';
import { eventually } from '../../helpers/fixture-host.js';

interface Domain {
  status: string;
  error: string | null;
  next_attempt_at: string | null;
}

test('with the CA down at start, certhub serves, and an order fails with the reason and a retry time', withPowerDns, async (t, powerdns) => {
  const directoryUrl = `https://127.0.0.1:${await reservePort('127.0.0.1')}/dir`;
  const dataDir = await certhubDataDir(t, {
    dns: { provider: 'powerdns', server_url: powerdns.apiUrl, api_token: powerdns.apiKey, zone: powerdns.zone },
    acme: { directory_url: directoryUrl },
    propagation: { nameservers: [powerdns.nameserver], timeout_seconds: 10 },
  });
  const server = await startCerthub(t, dataDir, []);
  t.is((await fetch(`${server.url}api/version`)).status, 200);
  const added = await server.admin('api/admin/domains', { method: 'POST', body: { name: 'app', target: '203.0.113.5' } });
  t.is(added.status, 201);

  let last: Domain | undefined;
  t.true(
    await eventually(
      async () => {
        last = (await (await server.admin('api/admin/domains/app')).json()) as Domain;
        return last.status === 'error';
      },
      60_000,
      100,
    ),
    `the order fails: ${JSON.stringify(last)}`,
  );
  t.regex(last?.error ?? '', /cannot reach https:\/\/127\.0\.0\.1:\d+/);
  t.true(Date.parse(last?.next_attempt_at ?? '') > Date.now() - 1000, 'a retry is planned');
  t.deepEqual(await powerdns.dig('app.example.test', 'A'), ['203.0.113.5'], 'the record is published all the same');
  t.regex(server.stdout() + server.stderr(), /acme: the account could not be opened at https:\/\/127\.0\.0\.1:\d+\/dir yet: .*orders will try again/);
  t.is((await fetch(`${server.url}api/version`)).status, 200, 'still serving');
});
