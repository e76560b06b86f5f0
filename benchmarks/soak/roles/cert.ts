// certhub under soak on the stack the tests use, Pebble validating through PowerDNS: every 3 s a
// domain added (an ACME order, its DNS records and challenge), the oldest removed once 12 are kept,
// and one issued domain's token rotated; every second the domain list read as the panel does and
// each issued domain fetched with its token, as certhub-agent fetch does.
import { addDomain, listDomains, startCertStack, type DomainView } from '../../certhub-server.js';
import { startInspected } from '../inspector.js';
import { every, expectStatus, type Tally } from '../load.js';
import type { StartRole } from '../role.js';

/** Domains kept: each add beyond them removes the oldest, so the store stays the same size. */
const keptDomains = 12;
/** Seconds between two changes (an add, maybe a removal, a rotation). */
const changeEvery = 3;

export const soakCert: StartRole = async (dir) => {
  // The inspector on a loopback port: the sampler collects garbage in every thread before a sample (inspector.ts).
  const { started: stack, inspector } = await startInspected(
    (option) => startCertStack(dir, [option]),
    (stack) => stack.stop(),
  );
  const server = stack.certhub;
  return {
    target: { pid: server.pid, metrics: () => server.admin('metrics'), inspector },
    load: `each second every issued domain fetched with its token; every ${changeEvery} s a domain added (issued by Pebble through PowerDNS), the oldest removed past ${keptDomains}, and an issued domain's token rotated`,
    async run(signal: AbortSignal, tally: Tally) {
      let tick = 0;
      let added = 0;
      const order: string[] = [];
      const errorsSeen = new Set<string>();
      // One loop, so that no fetch races a rotation or a removal: every answer but 200 is a failure.
      await every(1000, signal, tally, 'round', async () => {
        if (tick++ % changeEvery === 0) {
          const domain = await addDomain(server, `soak-${added}`, `203.0.113.${(added % 200) + 1}`);
          added++;
          order.push(domain.name);
          tally.ok('add 201');
          if (order.length > keptDomains) {
            await expectStatus(await server.admin(`api/admin/domains/${order.shift()!}`, { method: 'DELETE' }), 204);
            tally.ok('remove 204');
          }
          const issued = (await listDomains(server)).filter((entry) => entry.status === 'issued');
          const rotated = issued[added % Math.max(1, issued.length)];
          if (rotated !== undefined) {
            await expectStatus(await server.admin(`api/admin/domains/${rotated.name}/rotate`, { method: 'POST' }), 200);
            tally.ok('rotate 200');
          }
        }
        const domains = await listDomains(server);
        tally.ok('list 200');
        for (const entry of domains) noteError(entry, errorsSeen, tally);
        await Promise.all(
          domains
            .filter((entry) => entry.status === 'issued')
            .map(async (entry) => {
              await expectStatus(await fetch(`${server.url}api/cert/${entry.name}`, { headers: { authorization: `Bearer ${entry.token}` } }), 200);
              tally.ok('fetch 200');
            }),
        );
      });
    },
    log: () => server.log(),
    stop: () => (inspector.close(), stack.stop()),
  };
};

/** A domain in `error` is retried by certhub, but the soak's load should never put one there: noted once each. */
function noteError(entry: DomainView, errorsSeen: Set<string>, tally: Tally): void {
  if (entry.status !== 'error' || errorsSeen.has(entry.name)) return;
  errorsSeen.add(entry.name);
  tally.failed('domain in error', entry.error ?? 'no reason');
}
