// Everything an ACME order needs, on the real stack: PowerDNS, Pebble validating through it, an
// account registered with Pebble (keys from the shared job pool), a provider for the challenge
// records and the authoritative check pointed at PowerDNS. Torn down in `finally`.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { openAcmeAccount, type AcmeAccount } from '../../../actors/cert/acme/account.js';
import type { IssueContext } from '../../../actors/cert/acme/order.js';
import { AuthoritativeDns } from '../../../actors/cert/acme/propagation.js';
import { createDnsProvider } from '../../../actors/cert/dns/providers/create.js';
import type { DnsProvider } from '../../../actors/cert/dns/providers/provider.js';
import { JobPool } from '../../../src/jobs/pool.js';
import type { KeyType } from '../../../actors/cert/key-types.js';
import { startCertStack, stopCertStack, type CertStack } from '../../helpers/cert-stack.js';
import type { PebbleOptions } from '../../../benchmarks/third-party/pebble.js';
import { generatePrivateKeyJob } from '../../../actors/cert/jobs.js';

export interface AcmeFixture extends CertStack {
  account: AcmeAccount;
  jobs: JobPool;
  /** The account's folder. */
  dir: string;
  generateKey(keyType: KeyType): Promise<string>;
  /** An order context: PowerDNS for the challenge records, the check asking only PowerDNS; `overrides` replace parts. */
  issueContext(overrides?: Partial<ProviderIssueContext>): ProviderIssueContext;
}

/** An order context whose challenge records go straight to a provider, which tests can also list. */
export type ProviderIssueContext = Omit<IssueContext, 'dns'> & { dns: DnsProvider };

/** `pebble`: Pebble's environment and settings beyond the defaults (e.g. PEBBLE_ALTERNATE_ROOTS). */
export const withAcme = test.macro(
  async (t, body: (t: ExecutionContext, fixture: AcmeFixture) => Promise<void>, pebble: Omit<PebbleOptions, 'dnsServer'> = {}) => {
    const stack = await startCertStack({}, pebble);
    const dir = await mkdtemp(join(tmpdir(), 'outpost-acme-'));
    const jobs = new JobPool();
    let account: AcmeAccount | undefined;
    try {
      const generateKey = (keyType: KeyType) => jobs.run(generatePrivateKeyJob, { keyType });
      account = await openAcmeAccount({
        acceptTerms: true,
        directoryUrl: stack.pebble.directoryUrl,
        caBundlePem: await readFile(stack.pebble.caFile, 'utf8'),
        dir: join(dir, 'acme'),
        generateKey,
      });
      const { powerdns } = stack;
      const opened = account;
      await body(t, {
        ...stack,
        account,
        jobs,
        dir,
        generateKey,
        issueContext: (overrides = {}) => ({
          account: opened,
          dns: createDnsProvider({ provider: 'powerdns', server_url: powerdns.apiUrl, api_token: powerdns.apiKey, zone: powerdns.zone }),
          authoritative: new AuthoritativeDns({ nameservers: [powerdns.nameserver] }),
          propagation: { timeoutMs: 30_000, intervalMs: 50 },
          generateKey,
          log: (message) => t.log(message),
          ...overrides,
        }),
      });
    } finally {
      account?.close();
      await jobs.close();
      await stopCertStack(stack);
      await rm(dir, { recursive: true, force: true });
    }
  },
);
