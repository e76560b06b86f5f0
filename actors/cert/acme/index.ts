// The acme actor's thread entry: opens (or registers) the account at start, then runs one order per
// issue() call; keys are made in the shared job pool. When the CA answers that it does not know the
// account (a CA that lost its state), the key is registered again and the order run once more.
// Challenge records are journaled (challenge-journal.ts), so those a kill left behind are removed at start.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runActor } from '../../../src/actor/worker-entry.js';
import type { KeyType } from '../key-types.js';
import { openAcmeAccount, type AcmeAccount } from './account.js';
import { ChallengeJournal } from './challenge-journal.js';
import { OrderJournal } from './order-journal.js';
import { accountDoesNotExist, AcmeOrderError } from './errors.js';
import { acmeActor } from './kind.js';
import { issueCertificate } from './order.js';
import { AuthoritativeDns } from './propagation.js';
import type { AcmeApi, ChallengeRecords } from './protocol.js';
import { fetchRenewalInfo } from './renewal-info.js';
import { offeredProfiles } from './profiles.js';
import { noAcmeFigures, registerAcmeMetrics } from './acme-metrics.js';
import { generatePrivateKeyJob } from '../jobs.js';
import { OutpostError } from '../../../src/errors.js';
import { revokeAtCa } from './revocation.js';
import { isRevocationReason, revocationReasonNames } from './revocation-reasons.js';

/** The first wait before the account is tried again after the CA could not be reached at start, and the longest. */
const firstRetryMs = 5000;
const longestRetryMs = 300_000;

runActor(acmeActor, {
  async start(context) {
    const { config, log } = context;
    const figures = context.metrics.enabled ? registerAcmeMetrics(context.metrics.registry) : noAcmeFigures;
    const generateKey = (keyType: KeyType) => context.jobs.run(generatePrivateKeyJob, { keyType });
    const caBundlePem = config.caBundleFile === undefined ? undefined : await readFile(config.caBundleFile, 'utf8');
    const open = (registerAgain: boolean) =>
      openAcmeAccount({
        directoryUrl: config.directoryUrl,
        ...(config.email === undefined ? {} : { email: config.email }),
        ...(caBundlePem === undefined ? {} : { caBundlePem }),
        ...(config.eab === undefined ? {} : { eab: config.eab }),
        acceptTerms: config.acceptTerms,
        dir: join(config.dataDir, 'acme'),
        keyType: config.keyType,
        generateKey,
        registerAgain,
      });
    // Opened on first need, not at start: a CA that is down (or a directory URL that is wrong) must not
    // keep certhub from starting and serving the certificates it has. An order that cannot open the
    // account fails like any order, with the reason shown and the domain's backoff, and the next one
    // tries again.
    let current: Promise<AcmeAccount> | undefined;
    let opened: AcmeAccount | undefined;
    const account = (): Promise<AcmeAccount> => {
      current ??= open(false).then(
        (ready) => {
          log.info(`acme: account ${ready.accountUrl} at ${ready.directoryUrl}`);
          opened = ready;
          figures.accountOpen(true);
          context.setReadiness(true);
          return ready;
        },
        (error: unknown) => {
          current = undefined;
          if (opened === undefined)
            context.setReadiness(false, `the ACME account is not open at ${config.directoryUrl}: ${error instanceof Error ? error.message : String(error)}`);
          throw error;
        },
      );
      return current;
    };
    // Not ready until the account is open (docs/operations.md, Health and readiness): tried again in the
    // background, with a growing wait, so that readiness comes back without waiting for an order.
    context.setReadiness(false, `opening the ACME account at ${config.directoryUrl}`);
    let retryMs = firstRetryMs;
    let retry: NodeJS.Timeout | undefined;
    const keepOpening = () => {
      account().catch((error: unknown) => {
        log.warn(
          `acme: the account could not be opened at ${config.directoryUrl} yet: ${error instanceof Error ? error.message : String(error)}; orders will try again, and so will certhub in ${retryMs / 1000} s`,
        );
        retry = setTimeout(keepOpening, retryMs);
        retryMs = Math.min(retryMs * 2, longestRetryMs);
      });
    };
    keepOpening();
    let registering: Promise<AcmeAccount> | undefined;
    /** The CA forgot `stale` (a CA that lost its state): the same key is registered again, once for all the orders that met it. */
    const registerAgain = (stale: AcmeAccount): Promise<AcmeAccount> => {
      if (opened !== stale) return account();
      log.warn(`acme: the CA no longer knows account ${stale.accountUrl}; registering the account key again`);
      registering ??= open(true)
        .then((fresh) => {
          opened = fresh;
          current = Promise.resolve(fresh);
          stale.close();
          log.info(`acme: account ${fresh.accountUrl} at ${fresh.directoryUrl}`);
          return fresh;
        })
        .finally(() => (registering = undefined));
      return registering;
    };
    const dnsActor = context.peer(config.dns);
    const { journal, leftover } = await ChallengeJournal.open(join(config.dataDir, 'acme', 'challenges.json'));
    const dns: ChallengeRecords = {
      async addTxt(name, value) {
        await journal.add({ name, value });
        await dnsActor.call((api) => api.addTxt(name, value));
      },
      async removeTxt(name, value) {
        await dnsActor.call((api) => api.removeTxt(name, value));
        await journal.remove({ name, value });
      },
    };
    // Records of orders the last run did not finish (a kill, a failed removal): removed in the background,
    // and before any order of this run starts: a resumed order writes the same TXT value again (its
    // challenge is the same), which a removal still under way would delete under the CA's validation.
    const leftoverRemoved = (async () => {
      for (const entry of leftover) {
        try {
          await dns.removeTxt(entry.name, entry.value);
          log.info(`acme: removed the challenge TXT ${entry.name} left by an order the last run did not finish`);
        } catch (error) {
          log.warn(`acme: the challenge TXT ${entry.name} left by the last run could not be removed: ${String(error)}`);
        }
      }
    })();
    // Orders a failed or cut attempt left open at the CA, resumed by the next attempt for the same name.
    const orders = await OrderJournal.open(join(config.dataDir, 'acme', 'orders.json'));
    const authoritative = new AuthoritativeDns(config.nameservers.length === 0 ? {} : { nameservers: config.nameservers });
    const api: AcmeApi = {
      async issue(name, replaces, domainProfile) {
        const profile = domainProfile ?? config.profile;
        await leftoverRemoved;
        const order = (withAccount: AcmeAccount) =>
          issueCertificate(
            {
              name,
              keyType: config.keyType,
              ...(replaces === undefined ? {} : { replaces }),
              ...(profile === undefined ? {} : { profile }),
              ...(config.preferredChain === undefined ? {} : { preferredChain: config.preferredChain }),
            },
            {
              account: withAccount,
              dns,
              authoritative,
              propagation: { timeoutMs: config.propagationTimeoutMs },
              generateKey,
              orders,
              log: (message) => log.info(message),
            },
          );
        const started = performance.now();
        const issued = await (async () => {
          const used = await account();
          return order(used).catch(async (error: unknown) => {
            if (!(error instanceof AcmeOrderError) || error.problemType !== accountDoesNotExist) throw error;
            return order(await registerAgain(used));
          });
        })().then(
          (done) => {
            figures.orderDone('issued', (performance.now() - started) / 1000);
            return done;
          },
          (error: unknown) => {
            figures.orderDone('failed', (performance.now() - started) / 1000);
            throw error;
          },
        );
        return {
          material: { cert_pem: issued.certPem, chain_pem: issued.chainPem, key_pem: issued.keyPem },
          notBefore: Date.parse(issued.notBefore),
          notAfter: Date.parse(issued.notAfter),
        };
      },
      profiles: async () => {
        const opened = await account();
        return opened.connection.run(() => offeredProfiles(opened.client));
      },
      renewalInfo: async (certId) => fetchRenewalInfo(await account(), certId, Date.now()),
      async revoke(certPem, reason) {
        if (!isRevocationReason(reason)) throw new OutpostError('ERR_BAD_REQUEST', `reason must be one of ${revocationReasonNames.join(', ')}`);
        return revokeAtCa(await account(), certPem, reason);
      },
      forgetOrder: (name) => orders.delete(name),
    };
    return {
      api,
      stop: () => {
        clearTimeout(retry);
        opened?.close();
        return Promise.resolve();
      },
    };
  },
});
