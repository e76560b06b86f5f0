// One DNS-01 order for one name, as the reference's "DNS-01 correctness" asks: the TXT goes where a
// CNAME on _acme-challenge points, the authoritative nameservers are checked before the CA is asked
// (acme-client's own check is skipped: it asks the system resolver), the challenge records are removed
// in `finally` whatever happens, and a refusal carries the CA's Retry-After. Plain async code, no
// threads: the acme actor calls it; tests call it directly.
import { X509Certificate, createPrivateKey } from 'node:crypto';
import acme, { type Authorization } from 'acme-client';
import { OutpostError } from '../../src/errors.js';
import type { KeyType } from '../../src/jobs/private-key.js';
import type { AuthoritativeDns, PropagationWait } from '../dns/propagation.js';
import type { DnsProvider } from '../dns/providers/provider.js';
import { messageOf, type AcmeAccount } from './account.js';
import type { CaCallState } from './ca-connection.js';
import { AcmeOrderError } from './errors.js';

export interface IssueRequest {
  /** The one name the certificate is for (`app.example.com`). */
  name: string;
  keyType: KeyType;
  /** ARI CertID of the certificate this one renews (RFC 9773 `replaces`), when the CA offers ARI. */
  replaces?: string;
}

/** Where an order writes its challenge TXT records: the `dns_acme` provider, or the dns actor that holds it. */
export type ChallengeRecords = Pick<DnsProvider, 'addTxt' | 'removeTxt'>;

export interface IssueContext {
  account: AcmeAccount;
  dns: ChallengeRecords;
  authoritative: AuthoritativeDns;
  propagation: PropagationWait;
  generateKey: (keyType: KeyType) => Promise<string>;
  log?: (message: string) => void;
}

export interface IssuedCertificate {
  name: string;
  /** The leaf certificate, PEM. */
  certPem: string;
  /** The intermediates that follow it, PEM. */
  chainPem: string;
  /** The certificate's private key, PKCS#8 PEM. */
  keyPem: string;
  notBefore: string;
  notAfter: string;
  /** Hexadecimal, as X509Certificate gives it. */
  serialNumber: string;
}

interface ChallengeRecord {
  name: string;
  value: string;
}

export async function issueCertificate(request: IssueRequest, context: IssueContext): Promise<IssuedCertificate> {
  const { account, log = () => {} } = context;
  const name = request.name.replace(/\.$/, '').toLowerCase();
  // The key is made in the job pool while the DNS work goes on.
  const keyPem = context.generateKey(request.keyType);
  keyPem.catch(() => {});
  return account.connection.run(async (state) => {
    const step = <T>(label: string, operation: () => Promise<T>) => caStep(state, `${label} for ${name}`, operation);
    const orderRequest = { identifiers: [{ type: 'dns', value: name }], ...(request.replaces === undefined ? {} : { replaces: request.replaces }) };
    // Removals of challenge records, started as soon as their challenge is settled and waited for
    // before the order ends, whatever its outcome.
    const removals: Promise<void>[] = [];
    try {
      const order = await step('creating the order', () => account.client.createOrder(orderRequest));
      const authorizations = await step('reading the authorizations', () => account.client.getAuthorizations(order));
      for (const authorization of authorizations) await satisfyAuthorization(authorization, context, state, removals);
      const [, csr] = await acme.crypto.createCsr({ commonName: name, altNames: [name] }, await keyPem);
      const finalized = await step('finalizing the order', () => account.client.finalizeOrder(order, csr));
      const fullChain = await step('downloading the certificate', () => account.client.getCertificate(finalized));
      const issued = readIssued(name, fullChain, await keyPem);
      log(`acme: ${name} issued, valid until ${issued.notAfter}`);
      return issued;
    } finally {
      await Promise.all(removals);
    }
  });
}

/** Proves control of one name with dns-01; the removal of its TXT record, started once the challenge is settled either way, joins `removals`. */
async function satisfyAuthorization(authorization: Authorization, context: IssueContext, state: CaCallState, removals: Promise<void>[]): Promise<void> {
  const log = context.log ?? (() => {});
  const name = authorization.identifier.value;
  // A CA may reuse an authorization it validated recently: nothing to prove.
  if (authorization.status === 'valid') return;
  const challenge = authorization.challenges.find((candidate) => candidate.type === 'dns-01');
  if (challenge === undefined) throw new AcmeOrderError(`acme: the CA offers no dns-01 challenge for ${name}`);
  const client = context.account.client;
  const value = await caStep(state, `computing the key authorization for ${name}`, () => client.getChallengeKeyAuthorization(challenge));
  const written: ChallengeRecord[] = [];
  try {
    const recordName = await context.authoritative.challengeName(name);
    // Noted before the write: a write whose answer is lost may still have happened.
    written.push({ name: recordName, value });
    await context.dns.addTxt(recordName, value);
    log(`acme: TXT ${recordName} written, waiting for the authoritative nameservers`);
    await context.authoritative.waitForTxt(recordName, value, context.propagation);
    await caStep(state, `completing the challenge for ${name}`, () => client.completeChallenge(challenge));
    await caStep(state, `validating ${name}`, () => client.waitForValidStatus(challenge));
  } finally {
    removals.push(removeChallengeRecords(context.dns, written, log));
  }
}

/** Never fails: a record that cannot be removed is logged. */
async function removeChallengeRecords(dns: ChallengeRecords, records: readonly ChallengeRecord[], log: (message: string) => void): Promise<void> {
  for (const record of records) {
    try {
      await dns.removeTxt(record.name, record.value);
    } catch (error) {
      // The order's own outcome stands; a record left behind is reported, and is harmless to the next order.
      log(`acme: the challenge TXT at ${record.name} could not be removed: ${messageOf(error)}`);
    }
  }
}

/** Runs one CA step; a failure becomes ERR_ACME_ORDER naming the step, with the CA's Retry-After when it sent one. */
async function caStep<T>(state: CaCallState, label: string, operation: () => Promise<T>): Promise<T> {
  state.problemType = undefined;
  try {
    return await operation();
  } catch (error) {
    if (error instanceof OutpostError) throw error;
    throw new AcmeOrderError(`acme: ${label} failed: ${messageOf(error)}`, state.retryAfterSeconds, state.problemType);
  }
}

function readIssued(name: string, fullChain: string, keyPem: string): IssuedCertificate {
  const [leafPem, ...intermediates] = acme.crypto.splitPemChain(fullChain);
  if (leafPem === undefined) throw new AcmeOrderError(`acme: the CA sent no certificate for ${name}`);
  const leaf = new X509Certificate(leafPem);
  if (!leaf.checkPrivateKey(createPrivateKey(keyPem))) throw new AcmeOrderError(`acme: the certificate the CA sent for ${name} does not match its key`);
  if (leaf.checkHost(name) === undefined) throw new AcmeOrderError(`acme: the certificate the CA sent is not valid for ${name}`);
  return {
    name,
    certPem: `${leafPem.trim()}\n`,
    chainPem: intermediates.map((pem) => `${pem.trim()}\n`).join(''),
    keyPem,
    notBefore: new Date(leaf.validFrom).toISOString(),
    notAfter: new Date(leaf.validTo).toISOString(),
    serialNumber: leaf.serialNumber,
  };
}
