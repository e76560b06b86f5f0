// The dns actor's thread entry: one provider for the domains' address records.
import { runActor } from '../../src/actor/worker-entry.js';
import { dnsActor } from './kind.js';
import type { DnsApi } from './protocol.js';
import { createDnsProvider } from './providers/create.js';

runActor(dnsActor, {
  start(context) {
    const provider = createDnsProvider(context.config.records);
    const api: DnsApi = {
      async setAddress(name, target) {
        const type = await provider.setAddress(name, target);
        context.log.info(`dns: ${name} ${type} ${target} (${provider.kind})`);
        return type;
      },
      async removeAddress(name) {
        await provider.removeAddress(name);
        context.log.info(`dns: removed the address records of ${name} (${provider.kind})`);
      },
    };
    return { api };
  },
});
