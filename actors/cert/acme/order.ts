// One DNS-01 order for one name and the names it covers with it, as the reference's "DNS-01 correctness" asks: the TXT goes where a
// CNAME on _acme-challenge points, the authoritative nameservers are checked before the CA is asked
// (acme-client's own check is skipped: it asks the system resolver), the challenge records are removed
// in `finally` whatever happens, and a refusal carries the CA's Retry-After. Plain async code, no
// threads: the acme actor calls it; tests call it directly.
import { X509Certificate, createPrivateKey } from 'node:crypto';
import acme, { type Authorization, type Order } from 'acme-client';
import { OutpostError } from '../../../src/errors.js';
import type { KeyType } from '../key-types.js';
import { messageOf, type AcmeAccount } from './account.js';
import type { CaCallState } from './ca-connection.js';
import { AcmeOrderError, badNonce, rateLimited, serverInternal } from './errors.js';
import type { OrderLedger } from './order-journal.js';
import type { AuthoritativeDns, PropagationWait } from './propagation.js';
import type { ChallengeRecords } from './protocol.js';
import { offeredProfiles, profileToSend } from './profiles.js';
import { pollUntilFinal, type ValidationPolling } from './validation-poll.js';
import { waitUntilIssued, type IssuanceWait } from './issuance-wait.js';
import { pausedError, unpauseUrlOf } from './paused.js';
import { spkiOf } from '../../../src/crypto/spki.js';

export interface IssueRequest {
  /** The name the certificate is for (`app.example.com`); its orders are kept under it. */
  name: string;
  /** The names it covers beside `name` (`www.app.example.com`, `*.app.example.com`); none when absent. */
  altNames?: readonly string[];
  keyType: KeyType;
  /** ARI CertID of the certificate this one renews (RFC 9773 `replaces`), when the CA offers ARI. */
  replaces?: string;
  /** The ACME profile to order (profiles.ts); sent only when the CA's directory lists profiles. */
  profile?: string;
  /** The issuer common name the chain should end with when the CA offers alternate chains (RFC 8555 §7.4.2, Link rel="alternate"). */
  preferredChain?: string;
  /** The host's CSR (PEM) of an own_key domain: the order is finalized with it, no key is made, and the certificate must carry its key. */
  csrPem?: string;
}

export interface IssueContext {
  account: AcmeAccount;
  dns: ChallengeRecords;
  authoritative: AuthoritativeDns;
  propagation: PropagationWait;
  generateKey: (keyType: KeyType) => Promise<string>;
  log?: (message: string) => void;
  /** Where orders in flight are kept, so a failed or cut attempt resumes its order (order-journal.ts); none: every attempt orders afresh. */
  orders?: OrderLedger;
  /** How long, and how often, an authorization is polled once its challenge is answered; validation-poll.ts has the defaults. */
  validation?: Partial<ValidationPolling>;
  /** How long, and how often, a finalized order is polled while the CA issues it; issuance-wait.ts has the defaults. */
  issuance?: Partial<IssuanceWait>;
}

export interface IssuedCertificate {
  name: string;
  /** The leaf certificate, PEM. */
  certPem: string;
  /** The intermediates that follow it, PEM. */
  chainPem: string;
  /** The certificate's private key, PKCS#8 PEM; empty when the order went with the host's CSR. */
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
  const { account, log = () => {}, orders } = context;
  const name = request.name.replace(/\.$/, '').toLowerCase();
  const names = [name, ...(request.altNames ?? []).map((one) => one.replace(/\.$/, '').toLowerCase())];
  const { csrPem } = request;
  // The key is made in the job pool while the DNS work goes on; none for an order with the host's CSR.
  const freshKey = csrPem === undefined ? context.generateKey(request.keyType) : Promise.resolve('');
  freshKey.catch(() => {});
  // The X.509 library is loaded only for an order with a host's CSR: the thread's start does without it.
  const csrSpki = csrPem === undefined ? undefined : (await (await import('../../../src/crypto/csr.js')).readCsr(csrPem)).spki;
  return account.connection.run(async (state) => {
    const step = <T>(label: string, operation: () => Promise<T>) => caStep(state, `${label} for ${name}`, operation);
    // Removals of challenge records, started as soon as their challenge is settled and waited for
    // before the order ends, whatever its outcome.
    const removals: Promise<void>[] = [];
    try {
      const resumed = await resumableOrder(names, csrPem, context, state);
      let order = resumed?.order ?? (await newOrder(names, request, context, state));
      let keyPem = resumed?.keyPem;
      if (order.status === 'pending') {
        const authorizations = await step('reading the authorizations', () => account.client.getAuthorizations(order));
        // A wildcard and its parent share one challenge name (`_acme-challenge.app.example.com`): its
        // two TXT values stay until every authorization is settled, so neither removal can take away a
        // value the CA has still to see.
        const shared = sharedChallengeRecords(authorizations, context);
        try {
          for (const authorization of authorizations) await satisfyAuthorization(authorization, context, state, removals, shared);
        } finally {
          removals.push(shared.remove());
        }
        order = await step('reading the order', () => account.client.getOrder(order));
      }
      if (order.status === 'pending' || order.status === 'ready') {
        keyPem = await freshKey;
        // Kept before finalize: if the answer is lost, the order issued for this key (or this CSR).
        await orders?.set(name, { ...(orders.get(name) ?? { url: order.url }), ...(csrPem === undefined ? { keyPem } : { csrPem }) });
        const csr = csrPem ?? (await acme.crypto.createCsr({ commonName: name, altNames: names }, keyPem))[1];
        order = await step('finalizing the order', () => account.client.finalizeOrder(order, csr));
      }
      if (keyPem === undefined) throw new AcmeOrderError(`acme: the order ${order.url} for ${name} is ${order.status} without a key known for it`);
      if (order.status !== 'valid') {
        const finalized = order;
        order = await step('waiting for the certificate', () => waitUntilIssued(account.client, finalized, context.issuance, log));
      }
      const fullChain = await step('downloading the certificate', () => account.client.getCertificate(order, request.preferredChain));
      const issued = readIssued(names, fullChain, csrSpki === undefined ? { keyPem } : { csrSpki });
      await orders?.delete(name);
      log(`acme: ${name} issued, valid until ${issued.notAfter}`);
      return issued;
    } finally {
      await Promise.all(removals);
    }
  });
}

/**
 * The order a previous attempt for `name` left open, when the CA still has it in a state this one can
 * carry on: pending or ready (validate, finalize), or processing or valid when its key is known
 * (download). Anything else (invalid, expired, unknown to the CA, a finalized order whose key was
 * lost) is forgotten, and a new order is made.
 */
async function resumableOrder(
  names: readonly string[],
  csrPem: string | undefined,
  context: IssueContext,
  state: CaCallState,
): Promise<{ order: Order; keyPem: string | undefined } | undefined> {
  const { orders, account, log = () => {} } = context;
  const name = names[0] ?? '';
  const entry = orders?.get(name);
  if (orders === undefined || entry === undefined) return undefined;
  let order: Order | undefined;
  try {
    order = await caStep(state, `reading the order left open for ${name}`, () => account.client.getOrder({ url: entry.url } as Order));
  } catch (error) {
    log(`acme: the order left open for ${name} (${entry.url}) cannot be read, ordering afresh: ${messageOf(error)}`);
  }
  const expired = order?.expires !== undefined && Date.parse(order.expires) <= Date.now();
  // An order for another set of names (the domain's set changed since) is not this one.
  const sameNames = order !== undefined && sameNameSet(order, names);
  // A finalized order is for the key it was finalized with: the one kept, or the CSR this order goes with.
  const finalizedFor = csrPem === undefined ? entry.keyPem !== undefined : entry.csrPem === csrPem;
  const usable =
    order !== undefined &&
    !expired &&
    sameNames &&
    (order.status === 'pending' || order.status === 'ready' || ((order.status === 'processing' || order.status === 'valid') && finalizedFor));
  if (order === undefined || !usable) {
    if (order !== undefined)
      log(`acme: the order left open for ${name} is ${expired ? 'expired' : sameNames ? order.status : 'for other names'}, ordering afresh`);
    await orders.delete(name);
    return undefined;
  }
  log(`acme: resuming the ${order.status} order ${entry.url} for ${name}`);
  return { order, keyPem: order.status === 'processing' || order.status === 'valid' ? (entry.keyPem ?? '') : undefined };
}

/**
 * A new order, naming the certificate it replaces when there is one. A CA checks `replaces` (boulder's
 * validateReplacementOrder): it refuses a CertID of an issuer or serial it does not know (malformed),
 * of a certificate another account ordered (unauthorized), of names the order does not share
 * (malformed), or of a certificate that already has a replacement order (alreadyReplaced), which
 * cannot be resumed here since its URL was lost. Whatever the reason, the order is made once more
 * without `replaces`: the renewal goes through, only the CA's ARI bookkeeping misses it. A refusal
 * that is not about `replaces` (a rate limit, a CA error) is the order's outcome as it stands.
 */
async function newOrder(names: readonly string[], request: IssueRequest, context: IssueContext, state: CaCallState): Promise<Order> {
  const { account, orders, log = () => {} } = context;
  const name = names[0] ?? '';
  const { replaces } = request;
  const profile =
    request.profile === undefined
      ? undefined
      : profileToSend(request.profile, await caStep(state, 'reading the directory', () => offeredProfiles(account.client)));
  const create = (withReplaces: string | undefined) =>
    caStep(state, `creating the order for ${name}`, () =>
      account.client.createOrder({
        identifiers: names.map((value) => ({ type: 'dns', value })),
        ...(withReplaces === undefined ? {} : { replaces: withReplaces }),
        ...(profile === undefined ? {} : { profile }),
      }),
    );
  let order: Order;
  let named = replaces;
  try {
    order = await create(replaces);
  } catch (error) {
    const unpauseUrl = unpauseUrlOf(state);
    if (unpauseUrl !== undefined) throw pausedError(name, unpauseUrl, state);
    if (replaces === undefined || !refusesReplaces(error)) throw error;
    log(`acme: the CA refused "replaces" on the renewal order for ${name} (${error.problemType}): ${error.message}; ordering without "replaces"`);
    named = undefined;
    order = await create(undefined);
  }
  await orders?.set(name, { url: order.url, ...(named === undefined ? {} : { replaces: named }) });
  return order;
}

/** Problem types that refuse the order as a whole, with or without `replaces`. */
const notAboutReplaces = new Set([rateLimited, serverInternal, badNonce]);

/** Whether a newOrder naming a replaced certificate was refused with a problem document that may be about `replaces`. */
function refusesReplaces(error: unknown): error is AcmeOrderError & { problemType: string } {
  return error instanceof AcmeOrderError && error.problemType !== undefined && !notAboutReplaces.has(error.problemType);
}

/** Proves control of one name with dns-01; the removal of its TXT record, started once the challenge is settled either way, joins `removals`. */
async function satisfyAuthorization(
  authorization: Authorization,
  context: IssueContext,
  state: CaCallState,
  removals: Promise<void>[],
  shared: SharedChallengeRecords,
): Promise<void> {
  const log = context.log ?? (() => {});
  // The CA's answer is read, not trusted: an authorization without the fields RFC 8555 §7.1.4 requires ends the order with the reason.
  const shaped = authorization as Partial<Authorization> | null;
  if (typeof shaped?.identifier?.value !== 'string' || !Array.isArray(shaped.challenges)) {
    throw new AcmeOrderError(`acme: the CA sent an authorization (${String(shaped?.url)}) without an identifier or a list of challenges`);
  }
  const name = authorization.identifier.value;
  // A CA may reuse an authorization it validated recently: nothing to prove.
  if (authorization.status === 'valid') return;
  const challenge = authorization.challenges.find((candidate: Partial<Authorization['challenges'][number]> | null) => candidate?.type === 'dns-01');
  // RFC 8555 §7.1.3: a wildcard is proved with dns-01 alone.
  if (challenge === undefined) throw new AcmeOrderError(`acme: the CA offers no dns-01 challenge for ${authorization.wildcard === true ? '*.' : ''}${name}`);
  const client = context.account.client;
  const value = await caStep(state, `computing the key authorization for ${name}`, () => client.getChallengeKeyAuthorization(challenge));
  const written: ChallengeRecord[] = [];
  try {
    const recordName = await context.authoritative.challengeName(name);
    // Noted before the write: a write whose answer is lost may still have happened.
    (shared.names.has(name) ? shared.records : written).push({ name: recordName, value });
    await context.dns.addTxt(recordName, value);
    log(`acme: TXT ${recordName} written, waiting for the authoritative nameservers`);
    await context.authoritative.waitForTxt(recordName, value, context.propagation);
    // A challenge a resumed order already answered is not answered again: the CA is validating it.
    if (challenge.status === 'pending') await caStep(state, `completing the challenge for ${name}`, () => client.completeChallenge(challenge));
    // The record stays until the authorization is final: removed while the CA still validates, it
    // fails a validation that counts against the CA's limit of failed validations per name.
    await caStep(state, `validating ${name}`, () => pollUntilFinal(client, authorization.url, { ...context.validation }, log));
  } finally {
    removals.push(removeChallengeRecords(context.dns, written, log));
  }
}

/** The challenge records of names that two authorizations of one order prove (a wildcard and its parent), removed once all are settled. */
interface SharedChallengeRecords {
  /** Identifier values that more than one authorization names. */
  names: ReadonlySet<string>;
  records: ChallengeRecord[];
  remove(): Promise<void>;
}

function sharedChallengeRecords(authorizations: readonly Authorization[], context: IssueContext): SharedChallengeRecords {
  const seen = new Set<string>();
  const names = new Set<string>();
  for (const authorization of authorizations) {
    const value = (authorization as Partial<Authorization> | null)?.identifier?.value;
    if (typeof value !== 'string') continue;
    if (seen.has(value)) names.add(value);
    seen.add(value);
  }
  const records: ChallengeRecord[] = [];
  return { names, records, remove: () => removeChallengeRecords(context.dns, records, context.log ?? (() => {})) };
}

/** Whether the order's identifiers are exactly `names`. */
function sameNameSet(order: Order, names: readonly string[]): boolean {
  const identifiers = Array.isArray(order.identifiers) ? order.identifiers.map((identifier) => String(identifier.value).toLowerCase()) : [];
  return identifiers.length === names.length && names.every((name) => identifiers.includes(name));
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
  state.problemDetail = undefined;
  state.problemInstance = undefined;
  try {
    return await operation();
  } catch (error) {
    if (error instanceof OutpostError) throw error;
    // acme-client reads the CA's answers as they come: one of the wrong shape fails inside it with a TypeError.
    const reason = error instanceof TypeError ? `the CA's answer is not shaped as RFC 8555 says (${error.message})` : messageOf(error);
    throw new AcmeOrderError(`acme: ${label} failed: ${reason}`, state.retryAfterSeconds, state.problemType);
  }
}

/** `fullChain` is what acme-client passed on: its HTTP layer parses a JSON answer, so it may be anything. */
function readIssued(names: readonly string[], fullChain: unknown, owner: { keyPem: string } | { csrSpki: Buffer }): IssuedCertificate {
  const name = names[0] ?? '';
  if (typeof fullChain !== 'string') throw new AcmeOrderError(`acme: the CA sent for ${name} a certificate chain that is not PEM text`);
  const [leafPem, ...intermediates] = acme.crypto.splitPemChain(fullChain);
  if (leafPem === undefined) throw new AcmeOrderError(`acme: the CA sent no certificate for ${name}`);
  let leaf: X509Certificate;
  try {
    leaf = new X509Certificate(leafPem);
  } catch (error) {
    throw new AcmeOrderError(`acme: the CA sent for ${name} a certificate that cannot be read (${messageOf(error)})`);
  }
  const matches = 'keyPem' in owner ? leaf.checkPrivateKey(createPrivateKey(owner.keyPem)) : spkiOf(leaf.publicKey).equals(owner.csrSpki);
  if (!matches) throw new AcmeOrderError(`acme: the certificate the CA sent for ${name} does not match its ${'keyPem' in owner ? 'key' : "host's CSR"}`);
  const covered = new Set((leaf.subjectAltName ?? '').split(', ').map((entry) => entry.replace(/^DNS:/, '').toLowerCase()));
  const missing = names.find((one) => !covered.has(one));
  if (leaf.checkHost(name) === undefined || missing !== undefined)
    throw new AcmeOrderError(`acme: the certificate the CA sent is not valid for ${missing ?? name}`);
  // Each certificate after the leaf must be the issuer of the one before it (RFC 8555 §7.4.2): a block
  // that is no certificate, or one that signed nothing here, would be served to every client.
  let child = leaf;
  for (const [index, pem] of intermediates.entries()) {
    let issuer: X509Certificate;
    try {
      issuer = new X509Certificate(pem);
    } catch (error) {
      throw new AcmeOrderError(`acme: certificate ${index + 2} of the chain the CA sent for ${name} cannot be read (${messageOf(error)})`);
    }
    if (!child.checkIssued(issuer) || !child.verify(issuer.publicKey))
      throw new AcmeOrderError(`acme: certificate ${index + 2} of the chain the CA sent for ${name} did not issue the one before it`);
    child = issuer;
  }
  return {
    name,
    certPem: `${leafPem.trim()}\n`,
    chainPem: intermediates.map((pem) => `${pem.trim()}\n`).join(''),
    keyPem: 'keyPem' in owner ? owner.keyPem : '',
    notBefore: new Date(leaf.validFrom).toISOString(),
    notAfter: new Date(leaf.validTo).toISOString(),
    serialNumber: leaf.serialNumber,
  };
}
