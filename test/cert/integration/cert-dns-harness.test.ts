// The harness itself: the private PowerDNS answers for its zone and the API changes it; Pebble serves
// its directory over HTTPS that verifies against the CA file it reports, and hands out its root.
import { X509Certificate } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import test from 'ava';
import { withCertStack } from '../../helpers/cert-stack.js';
import { withPowerDns } from '../../helpers/cert-stack.js';

test('PowerDNS answers for the zone it was given, with SOA-EDIT-API set', withPowerDns, async (t, powerdns) => {
  t.deepEqual(await powerdns.dig(powerdns.zone, 'NS'), [`ns1.${powerdns.zone}.`]);
  const [soa] = await powerdns.dig(powerdns.zone, 'SOA');
  t.regex(soa ?? '', new RegExp(`^ns1\\.${powerdns.zone.replace('.', '\\.')}\\. `));
  const response = await fetch(`${powerdns.apiUrl}/api/v1/servers/localhost/zones/${powerdns.zone}.?rrsets=false`, {
    headers: { 'X-API-Key': powerdns.apiKey },
  });
  const zone = (await response.json()) as { kind: string; soa_edit_api: string };
  t.is(zone.kind, 'Native');
  t.is(zone.soa_edit_api, 'DEFAULT');
});

test('Pebble serves its directory over verified HTTPS and hands out a CA root', withCertStack, async (t, { pebble }) => {
  const directory = JSON.parse((await pebble.get(pebble.directoryUrl)).body) as Record<string, unknown>;
  t.is(typeof directory.newOrder, 'string');
  const root = new X509Certificate(await pebble.root());
  t.true(root.ca);
  t.regex(root.subject, /Pebble Root CA/);
});

/** The pid of the Pebble whose config is in `dir` (its command line names the file). */
function pebblePid(dir: string): number {
  const config = join(dir, 'pebble-config.json');
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').includes(config)) return Number(entry);
    } catch {
      // The process ended while the list was read.
    }
  }
  throw new Error(`no process runs with ${config}`);
}

test('a running Pebble that is slow to answer is waited for, not given up after a fixed time', withCertStack, async (t, { pebble }) => {
  // A loaded machine can keep Pebble from answering for seconds: stopped for 6 s, it must still hand
  // out its root once it runs again (a fixed 5 s request timeout failed tests at load average 24).
  const pid = pebblePid(dirname(pebble.caFile));
  process.kill(pid, 'SIGSTOP');
  const root = pebble.root();
  // Judged below, once Pebble runs again; a rejection before then is not one nobody handles.
  root.catch(() => undefined);
  try {
    await sleep(6000);
  } finally {
    process.kill(pid, 'SIGCONT');
  }
  t.true(new X509Certificate(await root).ca);
});
