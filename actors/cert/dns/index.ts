// The dns actor's thread entry: the provider of the domains' address records and the one of the
// challenge records (the same object when dns_acme and dns_records are one provider).
import { isDeepStrictEqual } from 'node:util';
import { runActor } from '../../../src/actor/worker-entry.js';
import { dnsActor } from './kind.js';
import type { DnsApi } from './protocol.js';
import { createDnsProvider } from './providers/create.js';
import { registerDnsMetrics, untimed } from './dns-metrics.js';

runActor(dnsActor, {
  start(context) {
    const { records, challenges: challengesConfig } = context.config;
    const provider = createDnsProvider(records);
    const challenges = isDeepStrictEqual(challengesConfig, records) ? provider : createDnsProvider(challengesConfig);
    // Said at start, not found at the first propagation timeout (a zone without soa_edit_api, for one).
    for (const checked of new Set([provider, challenges])) {
      checked.warnings?.().then(
        (lines) => lines.forEach((line) => context.log.warn(line)),
        (error: unknown) =>
          context.log.warn(`dns: could not check the ${checked.kind} zone at start: ${error instanceof Error ? error.message : String(error)}`),
      );
    }
    // The challenges' provider only: notes say how TXT values are written. A failure is the warning's above.
    challenges.notes?.().then(
      (lines) => lines.forEach((line) => context.log.info(line)),
      () => undefined,
    );
    const timed = context.metrics.enabled ? registerDnsMetrics(context.metrics.registry) : untimed;
    const api: DnsApi = {
      async setAddress(name, target) {
        const type = await timed(provider.kind, 'set_address', () => provider.setAddress(name, target));
        context.log.info(`dns: ${name} ${type} ${target} (${provider.kind})`);
        return type;
      },
      async removeAddress(name) {
        await timed(provider.kind, 'remove_address', () => provider.removeAddress(name));
        context.log.info(`dns: removed the address records of ${name} (${provider.kind})`);
      },
      async claimAddress(name, adopt) {
        await timed(provider.kind, 'claim_address', () => provider.claimAddress(name, adopt));
        if (adopt) context.log.info(`dns: the address records of ${name} are certhub's (adopted, ${provider.kind})`);
      },
      addTxt: (name, value) => timed(challenges.kind, 'add_txt', () => challenges.addTxt(name, value)),
      removeTxt: (name, value) => timed(challenges.kind, 'remove_txt', () => challenges.removeTxt(name, value)),
    };
    return { api };
  },
});
