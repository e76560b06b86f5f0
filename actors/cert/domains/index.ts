// The domains actor's thread entry: loads the store, publishes the replica, and serves changes.
import { systemClock } from '../../../src/actor/clock.js';
import { runActor } from '../../../src/actor/worker-entry.js';
import { defaultBackoff } from './backoff.js';
import { DomainBook } from './book.js';
import { OperatorActions } from './operator-actions.js';
import { openLedgerBudget, unlimitedBudget } from './budget.js';
import { CaLimits, readCaLimits, withCaLimits } from './ca-limits.js';
import { actorIssuer, demoIssuer } from './issuer.js';
import { domainReplicaTopic, domainsActor } from './kind.js';
import { applyPrefsUpdate, readPrefs, writePrefs } from './prefs.js';
import type { DomainsApi } from './protocol.js';
import { ReplicaPublisher } from './replica-publisher.js';
import { RetiredTokenKeeper } from './retired-token-keeper.js';
import { readRetiredTokens } from './retired-tokens.js';
import { DomainStore } from './store.js';
import { FileDocuments } from '../store/documents.js';
import { noNotices } from './notices.js';
import { openNotifier } from '../notify/notifier.js';
import { HostBook } from '../hosts/host-book.js';
import { openHostStore } from '../hosts/host-store.js';
import { HostTokenBook } from '../hosts/host-token-book.js';
import { openHostTokenStore } from '../hosts/host-token-store.js';
import { HostProber } from '../hosts/prober.js';
import { probeTls } from '../hosts/probe.js';

/** Hosts one domain keeps (../hosts/host-book.ts). */
const hostsPerDomain = 100;

runActor(domainsActor, {
  async start(context) {
    const { config, log } = context;
    const { store, loaded } = await DomainStore.open(config.dataDir);
    for (const problem of loaded.problems) log.warn(problem);
    const documents = new FileDocuments(config.dataDir);
    const read = await readPrefs(documents);
    if (read.problem !== undefined) log.warn(read.problem);
    let prefs = read.prefs;
    const newCertificates =
      config.budget === undefined
        ? unlimitedBudget
        : await openLedgerBudget(config.budget, documents, systemClock, log, context.metrics.enabled ? context.metrics.registry : undefined);
    const budget =
      config.caLimits === undefined
        ? newCertificates
        : withCaLimits(newCertificates, new CaLimits(config.caLimits, systemClock, await readCaLimits(documents, log)), documents, log);
    const replica = new ReplicaPublisher((message, options) => context.publish(domainReplicaTopic, message, options));
    // Demo mode contacts nothing: role.ts hands it no channel, and no renewal task runs.
    const notifier = config.notify === undefined ? undefined : await openNotifier(documents, config.notify, { clock: systemClock, log });
    const notify = notifier?.notify ?? noNotices;
    const hostFiles = await openHostStore(documents);
    for (const problem of hostFiles.loaded.problems) log.warn(problem);
    let prober: HostProber | undefined;
    const hosts = new HostBook(hostFiles.loaded.hosts, {
      store: hostFiles.store,
      clock: systemClock,
      log,
      publish: (message, options) => context.publish(domainReplicaTopic, message, options),
      judgement: config.hosts,
      maxPerDomain: hostsPerDomain,
      notify,
      probeSoon: (name, record) => prober?.soon(name, record),
    });
    if (config.probes !== undefined) {
      prober = new HostProber({
        clock: systemClock,
        log,
        settings: config.probes,
        probe: probeTls,
        hosts: () => hosts.reporting(),
        record: (name, id, result) => hosts.recordProbe(name, id, result),
      });
    }
    const retiredRead = await readRetiredTokens(documents, systemClock.now());
    if (retiredRead.problem !== undefined) log.warn(retiredRead.problem);
    const retired = new RetiredTokenKeeper(retiredRead.tokens, {
      documents,
      publish: (message, options) => context.publish(domainReplicaTopic, message, options),
      log,
      now: () => systemClock.now(),
    });
    retired.publishAll();
    const hostTokenFiles = await openHostTokenStore(documents);
    for (const problem of hostTokenFiles.loaded.problems) log.warn(problem);
    const hostTokens = new HostTokenBook(hostTokenFiles.loaded.tokens, {
      store: hostTokenFiles.store,
      clock: systemClock,
      log,
      publish: (message, options) => context.publish(domainReplicaTopic, message, options),
      retire: (retiring) => retired.retireDigest(retiring),
    });
    const issuer =
      config.issuers === undefined
        ? demoIssuer(systemClock, config.keyType)
        : actorIssuer(context.peer(config.issuers.dns), context.peer(config.issuers.acme), config.issuers.orderTimeoutMs);
    const book = new DomainBook(config.baseDomain, loaded.domains, {
      store,
      issuer,
      clock: systemClock,
      log,
      publish: (change) => {
        replica.change(change);
        hosts.domainChanged(change);
        hostTokens.domainChanged(change);
      },
      budget,
      parallelOrders: 8,
      maxDomains: config.maxDomains,
      allowApex: config.allowApex,
      backoff: { ...defaultBackoff, baseMs: config.retryBackoffMs },
      notify,
      scheduled: !config.demo,
      retire: (name, token, reason) => retired.retire(name, token, reason),
      reuseCsr: config.reuseCsr,
      ...(config.fallback === undefined ? {} : { fallback: config.fallback }),
    });
    const operator = new OperatorActions(book, issuer, log);
    await book.resume();
    await hosts.settle();
    await hostTokens.settle();
    prober?.start();
    notifier?.start();
    replica.loaded();
    log.info(`${loaded.domains.size} domains loaded from ${store.domainsDir}`);
    if (loaded.domains.size > config.maxDomains)
      log.warn(`${loaded.domains.size} domains are more than max_domains (${config.maxDomains}): every add is refused until enough are removed`);
    const api: DomainsApi = {
      add: (input) => book.add(input),
      setTarget: (name, target, adopt) => book.setTarget(name, target, adopt === true),
      setProfile: (name, profile) => book.setProfile(name, profile),
      setNames: (name, names, wildcardRecords) => book.setNames(name, names, wildcardRecords),
      setOwnKey: (name, ownKey) => book.setOwnKey(name, ownKey),
      submitCsr: (name, csrPem) => book.submitCsr(name, csrPem),
      remove: (name) => book.remove(name),
      caProfiles: () => issuer.profiles(),
      rotate: (name) => book.rotate(name),
      retry: (name) => book.retryNow(name),
      renew: (name) => operator.renew(name),
      rekey: (name) => operator.rekey(name),
      revoke: (name, reason) => operator.revoke(name, reason),
      recordFetches: (fetches) => Promise.resolve(fetches.forEach(({ name, from, at }) => book.recordFetch(name, from, at))),
      reportHost: (name, report, address, holder) => hosts.report(name, report, address, holder),
      removeHost: (name, id) => hosts.remove(name, id),
      issueHostToken: (name, host) => hostTokens.issue(name, host),
      revokeHostToken: (name, id) => hostTokens.revoke(name, id),
      recordHostTokenUses: (uses) => Promise.resolve(hostTokens.recordUses(uses)),
      prefs: () => Promise.resolve(prefs),
      async updatePrefs(update) {
        const next = applyPrefsUpdate(prefs, update);
        await writePrefs(documents, next);
        prefs = next;
        return prefs;
      },
    };
    return {
      api,
      stop: async () => {
        await book.stop();
        await prober?.stop();
        await hosts.stop();
        await hostTokens.stop();
        await retired.flush();
        await notifier?.stop();
      },
    };
  },
});
