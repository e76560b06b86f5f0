// The acme actor's thread entry: holds an account at each CA of acme.cas (ca-account.ts), opened in the
// background and on first need, and runs one order per issue() call at the CA the call names; keys are
// made in the shared job pool. When the CA answers that it does not know the account (a CA that lost its
// state), the key is registered again and the order run once more. Challenge records are journaled
// (challenge-journal.ts), so those a kill left behind are removed at start.
import { readFile } from 'node:fs/promises';
import { runActor } from '../../../src/actor/worker-entry.js';
import type { KeyType } from '../key-types.js';
import type { AcmeAccount } from './account.js';
import { accountFolders, acmeFolder, storedIdentity } from './account-folders.js';
import { CaAccount } from './ca-account.js';
import { ChallengeJournal } from './challenge-journal.js';
import { accountDoesNotExist, AcmeOrderError } from './errors.js';
import { acmeActor } from './kind.js';
import { issueCertificate } from './order.js';
import { AuthoritativeDns } from './propagation.js';
import type { AcmeApi, CaIdentity, ChallengeRecords } from './protocol.js';
import { fetchRenewalInfo } from './renewal-info.js';
import { offeredProfiles } from './profiles.js';
import { noAcmeFigures, registerAcmeMetrics } from './acme-metrics.js';
import { generatePrivateKeyJob } from '../jobs.js';
import { OutpostError } from '../../../src/errors.js';
import { revokeAtCa } from './revocation.js';
import { isRevocationReason, revocationReasonNames } from './revocation-reasons.js';
import { FileDocuments } from '../store/documents.js';

/** The first wait before an account is tried again after its CA could not be reached at start, and the longest. */
const firstRetryMs = 5000;
const longestRetryMs = 300_000;

runActor(acmeActor, {
  async start(context) {
    const { config, log } = context;
    const figures = context.metrics.enabled ? registerAcmeMetrics(context.metrics.registry) : noAcmeFigures;
    const generateKey = (keyType: KeyType) => context.jobs.run(generatePrivateKeyJob, { keyType });
    const folders = await accountFolders(
      config.dataDir,
      config.cas.map((ca) => ca.directoryUrl),
    );
    // Ready while at least one CA's account is open (docs/operations.md, Health and readiness): orders
    // can go to it. The reason names the CAs whose account is not open.
    const notOpen = new Map<string, string>(config.cas.map((ca) => [ca.directoryUrl, `opening the ACME account at ${ca.directoryUrl}`]));
    const open = new Set<string>();
    const showReadiness = () => {
      if (open.size > 0) context.setReadiness(true);
      else context.setReadiness(false, [...notOpen.values()].join('; '));
    };
    const cas: CaAccount[] = [];
    for (const [index, ca] of config.cas.entries()) {
      const caBundlePem = ca.caBundleFile === undefined ? undefined : await readFile(ca.caBundleFile, 'utf8');
      const holder = await CaAccount.open(
        {
          directoryUrl: ca.directoryUrl,
          dir: folders[index] as string,
          ...(config.email === undefined ? {} : { email: config.email }),
          ...(ca.eab === undefined ? {} : { eab: ca.eab }),
          acceptTerms: ca.acceptTerms,
          ...(caBundlePem === undefined ? {} : { caBundlePem }),
          keyType: config.keyType,
          generateKey,
        },
        log,
        (isOpen, reason) => {
          if (isOpen) {
            open.add(ca.directoryUrl);
            notOpen.delete(ca.directoryUrl);
          } else {
            notOpen.set(ca.directoryUrl, `the ACME account is not open at ${ca.directoryUrl}: ${reason ?? ''}`);
          }
          figures.accountOpen(open.size > 0);
          showReadiness();
        },
      );
      cas.push(holder);
    }
    showReadiness();
    // Each account is tried again in the background, with a growing wait, so that readiness comes back without waiting for an order.
    const retries = new Set<NodeJS.Timeout>();
    const keepOpening = (holder: CaAccount, retryMs: number) => {
      holder.account().catch((error: unknown) => {
        log.warn(
          `acme: the account could not be opened at ${holder.directoryUrl} yet: ${error instanceof Error ? error.message : String(error)}; orders will try again, and so will certhub in ${retryMs / 1000} s`,
        );
        const retry = setTimeout(() => {
          retries.delete(retry);
          keepOpening(holder, Math.min(retryMs * 2, longestRetryMs));
        }, retryMs);
        retries.add(retry);
      });
    };
    for (const holder of cas) keepOpening(holder, firstRetryMs);
    const caAt = (index: number | undefined): CaAccount => {
      const holder = cas[index ?? 0];
      if (holder === undefined) throw new OutpostError('ERR_BAD_REQUEST', `there is no CA number ${(index ?? 0) + 1} in acme.cas (${cas.length} listed)`);
      return holder;
    };
    const caOf = (identity: CaIdentity): CaAccount | undefined => cas.find((holder) => holder.directoryUrl === identity.directoryUrl);
    const dnsActor = context.peer(config.dns);
    const { journal, leftover } = await ChallengeJournal.open(new FileDocuments(acmeFolder(config.dataDir)));
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
    const authoritative = new AuthoritativeDns(config.nameservers.length === 0 ? {} : { nameservers: config.nameservers });
    const api: AcmeApi = {
      async issue(name, options = {}) {
        const holder = caAt(options.ca);
        const ca = config.cas[options.ca ?? 0];
        const profile = options.profile ?? ca?.profile;
        await leftoverRemoved;
        const order = (withAccount: AcmeAccount) => {
          // `replaces` names a CertID only the CA and account that issued it know.
          const known = options.replaces !== undefined && sameCa(options.replaces.ca, withAccount) ? options.replaces.certId : undefined;
          return issueCertificate(
            {
              name,
              ...(options.names === undefined || options.names.length === 0 ? {} : { altNames: options.names }),
              keyType: config.keyType,
              ...(known === undefined ? {} : { replaces: known }),
              ...(profile === undefined ? {} : { profile }),
              ...(ca?.preferredChain === undefined ? {} : { preferredChain: ca.preferredChain }),
              ...(options.csr === undefined ? {} : { csrPem: options.csr }),
            },
            {
              account: withAccount,
              dns,
              authoritative,
              propagation: { timeoutMs: config.propagationTimeoutMs },
              generateKey,
              orders: holder.orders,
              log: (message) => log.info(message),
            },
          );
        };
        const started = performance.now();
        let used: AcmeAccount | undefined;
        const issued = await (async () => {
          used = await holder.account();
          const first = used;
          return order(first).catch(async (error: unknown) => {
            if (!(error instanceof AcmeOrderError) || error.problemType !== accountDoesNotExist) throw error;
            used = await holder.registerAgain(first);
            return order(used);
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
          ca: { directoryUrl: holder.directoryUrl, accountUrl: (used as AcmeAccount).accountUrl },
        };
      },
      profiles: async () => {
        const opened = await caAt(0).account();
        return opened.connection.run(() => offeredProfiles(opened.client));
      },
      async renewalInfo(certId, ca) {
        const holder = caOf(ca);
        if (holder === undefined) return 'unknown';
        const opened = await holder.account();
        if (opened.accountUrl !== ca.accountUrl) return 'unknown';
        return fetchRenewalInfo(opened, certId, Date.now());
      },
      async revoke(certPem, reason, ca) {
        if (!isRevocationReason(reason)) throw new OutpostError('ERR_BAD_REQUEST', `reason must be one of ${revocationReasonNames.join(', ')}`);
        const holder = ca === undefined || ca === null ? caAt(0) : caOf(ca);
        if (holder === undefined)
          throw new OutpostError(
            'ERR_CONFLICT',
            `the certificate was issued by ${ca?.directoryUrl ?? ''}, which is not among acme.cas: certhub holds no account there to revoke it with`,
          );
        return revokeAtCa(await holder.account(), certPem, reason);
      },
      async forgetOrder(name) {
        for (const holder of cas) await holder.orders.delete(name);
      },
      accounts: () =>
        Promise.all(
          cas.map(async (holder) => ({
            directoryUrl: holder.directoryUrl,
            accountUrl: holder.opened?.accountUrl ?? (await storedAt(holder)) ?? null,
          })),
        ),
    };
    return {
      api,
      stop: () => {
        for (const retry of retries) clearTimeout(retry);
        for (const holder of cas) holder.close();
        return Promise.resolve();
      },
    };
  },
});

function sameCa(identity: CaIdentity, account: AcmeAccount): boolean {
  return identity.directoryUrl === account.directoryUrl && identity.accountUrl === account.accountUrl;
}

/** The account URL the CA's account.json names, when it names one at that directory. */
async function storedAt(holder: CaAccount): Promise<string | undefined> {
  const stored = await storedIdentity(holder.settings.dir);
  return stored?.directoryUrl === holder.directoryUrl ? stored.accountUrl : undefined;
}
