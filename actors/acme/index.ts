// The acme actor's thread entry: opens (or registers) the account at start, then runs one order per
// issue() call; keys are made in the shared job pool.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runActor } from '../../src/actor/worker-entry.js';
import type { KeyType } from '../../src/config/key-types.js';
import { AuthoritativeDns } from '../dns/propagation.js';
import { openAcmeAccount, type AcmeAccount } from './account.js';
import { acmeActor } from './kind.js';
import { issueCertificate, type ChallengeRecords } from './order.js';
import type { AcmeApi } from './protocol.js';
import { fetchRenewalInfo } from './renewal-info.js';

runActor(acmeActor, {
  async start(context) {
    const { config, log } = context;
    const generateKey = (keyType: KeyType) => context.jobs.run('generatePrivateKey', { keyType });
    const caBundlePem = config.caBundleFile === undefined ? undefined : await readFile(config.caBundleFile, 'utf8');
    // Opened on first need, not at start: a CA that is down (or a directory URL that is wrong) must not
    // keep certhub from starting and serving the certificates it has. An order that cannot open the
    // account fails like any order, with the reason shown and the domain's backoff, and the next one
    // tries again.
    let opening: Promise<AcmeAccount> | undefined;
    let opened: AcmeAccount | undefined;
    const account = (): Promise<AcmeAccount> => {
      opening ??= openAcmeAccount({
        directoryUrl: config.directoryUrl,
        ...(config.email === undefined ? {} : { email: config.email }),
        ...(caBundlePem === undefined ? {} : { caBundlePem }),
        dir: join(config.dataDir, 'acme'),
        keyType: config.keyType,
        generateKey,
      }).then(
        (ready) => {
          log.info(`acme: account ${ready.accountUrl} at ${ready.directoryUrl}`);
          opened = ready;
          return ready;
        },
        (error: unknown) => {
          opening = undefined;
          throw error;
        },
      );
      return opening;
    };
    account().catch((error: unknown) => log.warn(`acme: the account could not be opened at ${config.directoryUrl} yet: ${error instanceof Error ? error.message : String(error)}; orders will try again`));
    const dnsActor = context.peer(config.dns);
    const dns: ChallengeRecords = {
      addTxt: (name, value) => dnsActor.call((api) => api.addTxt(name, value)),
      removeTxt: (name, value) => dnsActor.call((api) => api.removeTxt(name, value)),
    };
    const authoritative = new AuthoritativeDns(config.nameservers.length === 0 ? {} : { nameservers: config.nameservers });
    const api: AcmeApi = {
      async issue(name, replaces) {
        const issued = await issueCertificate(
          { name, keyType: config.keyType, ...(replaces === undefined ? {} : { replaces }) },
          { account: await account(), dns, authoritative, propagation: { timeoutMs: config.propagationTimeoutMs }, generateKey, log: (message) => log.info(`acme: ${message}`) },
        );
        return {
          material: { cert_pem: issued.certPem, chain_pem: issued.chainPem, key_pem: issued.keyPem },
          notBefore: Date.parse(issued.notBefore),
          notAfter: Date.parse(issued.notAfter),
        };
      },
      renewalInfo: async (certId) => fetchRenewalInfo(await account(), certId, Date.now()),
    };
    return {
      api,
      stop: () => {
        opened?.close();
        return Promise.resolve();
      },
    };
  },
});
