// What certhub answers to GET /api/cert/<domain>, checked before anything reaches the disk: an answer
// that is not a certificate, its chain and its key, that belong together, for the domain asked, and
// still valid, issued by a CA this machine trusts (material-trust.ts), is refused as a whole, so good
// material on disk is never replaced by nonsense or by a key and certificate of someone else's making.
import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { z } from 'zod';
import type { CertificateResponse } from '../../cert/index.js';
import { chainProblem, type MaterialTrust } from './material-trust.js';
import { OutpostError } from '../../../src/errors.js';

/** The material of one domain as it goes to disk, with what was learned from checking it. */
export interface CertificateMaterial {
  /** The full name the certificate is for (the folder it is written to): the name asked for. */
  domain: string;
  certPem: string;
  /** The issuer chain without the leaf and without a root; empty for a self-signed certificate (certhub --demo). */
  chainPem: string;
  /** Empty in an answer for a domain whose key stays on its host (own-key.ts pairs it with that key). */
  keyPem: string;
  /** Epoch milliseconds: the leaf's notAfter. */
  expiresAt: number;
  /** The answer says certhub waits for the host's next CSR (own_key domains). */
  csrWanted?: boolean;
  /** The URL of the certhub server that answered it, as the agent was given it (certhub-servers.ts). */
  server?: string;
}

/** The answer is not usable; the message says why (it never quotes key material). */
export class BadAnswerError extends OutpostError {
  override readonly name: string = 'BadAnswerError';
  constructor(message: string, options?: ErrorOptions) {
    super('ERR_BAD_GATEWAY', message, options);
  }
}

const answerSchema = z.object({
  cert_pem: z.string(),
  chain_pem: z.string(),
  key_pem: z.string().optional(),
  expires_at: z.string(),
  csr_wanted: z.boolean().optional(),
}) satisfies z.ZodType<CertificateResponse>;

const pemBlock = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n[A-Za-z0-9+/=\r\n]+?-----END \1-----/g;
/** X.509 keeps whole seconds; certhub's expires_at is the leaf's notAfter. */
const expiryToleranceMs = 1000;

/**
 * Checks the answer for `requested` (a full name) at `now` (epoch ms) under `trust` and returns the
 * material to write; throws BadAnswerError naming the first problem. `ownKey`: the host keeps the key,
 * and the answer must hold none (the material's keyPem is then empty).
 */
export function checkCertificateAnswer(body: unknown, requested: string, now: number, trust: MaterialTrust, ownKey = false): CertificateMaterial {
  const parsed = answerSchema.safeParse(body);
  if (!parsed.success)
    throw new BadAnswerError('the answer is not a certificate response (cert_pem, chain_pem and expires_at as strings, key_pem a string when present)');
  const answer = parsed.data;
  const leafBlocks = pemBlocks(answer.cert_pem, 'cert_pem');
  if (leafBlocks.length !== 1 || leafBlocks[0]?.label !== 'CERTIFICATE') throw new BadAnswerError('cert_pem must hold exactly one CERTIFICATE block');
  const leaf = parseCertificate(leafBlocks[0].pem, 'cert_pem');
  const chainBlocks = answer.chain_pem.trim() === '' ? [] : pemBlocks(answer.chain_pem, 'chain_pem');
  const chain = chainBlocks.map((block, index) => {
    if (block.label !== 'CERTIFICATE') throw new BadAnswerError(`chain_pem block ${index + 1} is a ${block.label}, not a CERTIFICATE`);
    return parseCertificate(block.pem, `chain_pem block ${index + 1}`);
  });
  const keyPem = answeredKey(answer.key_pem, leaf, ownKey);
  const issuer = chain[0];
  if (issuer !== undefined && !leaf.checkIssued(issuer)) throw new BadAnswerError('the first certificate of chain_pem did not issue cert_pem');

  const domain = certifiedName(leaf, requested);
  const untrusted = chainProblem(leaf, chain, trust, now);
  if (untrusted !== undefined) throw new BadAnswerError(untrusted);
  const notAfter = Date.parse(leaf.validTo);
  const expiresAt = Date.parse(answer.expires_at);
  if (Number.isNaN(expiresAt)) throw new BadAnswerError(`expires_at ${JSON.stringify(answer.expires_at.slice(0, 40))} is not a date`);
  if (Math.abs(expiresAt - notAfter) > expiryToleranceMs)
    throw new BadAnswerError(`expires_at ${answer.expires_at} is not the certificate's notAfter (${new Date(notAfter).toISOString()})`);
  if (notAfter <= now) throw new BadAnswerError(`the certificate expired at ${new Date(notAfter).toISOString()}`);
  if (Date.parse(leaf.validFrom) > now + 86_400_000)
    throw new BadAnswerError(`the certificate is not valid before ${new Date(Date.parse(leaf.validFrom)).toISOString()}`);

  return {
    domain,
    certPem: `${leafBlocks[0].pem}\n`,
    // A root in the chain is left out: a client holds it already or does not trust it.
    chainPem: chainBlocks
      .filter((_, index) => !isRoot(chain[index]))
      .map((block) => `${block.pem}\n`)
      .join(''),
    keyPem,
    expiresAt: notAfter,
    ...(answer.csr_wanted === undefined ? {} : { csrWanted: answer.csr_wanted }),
  };
}

/** The answer's key, checked against the leaf; empty for a host that keeps its own (and then the answer must hold none). */
function answeredKey(keyText: string | undefined, leaf: X509Certificate, ownKey: boolean): string {
  if (ownKey) {
    if (keyText !== undefined)
      throw new BadAnswerError('certhub sent a key: it makes the key of this domain, which is not marked own_key (key kept on the host) there');
    return '';
  }
  if (keyText === undefined) throw new BadAnswerError('certhub sent no key: this domain keeps its key on its host (own_key); fetch it with --own-key');
  const keyBlocks = pemBlocks(keyText, 'key_pem');
  const keyBlock = keyBlocks[0];
  if (keyBlocks.length !== 1 || keyBlock === undefined || !/PRIVATE KEY$/.test(keyBlock.label))
    throw new BadAnswerError('key_pem must hold exactly one PRIVATE KEY block');
  const key = parsePrivateKey(keyBlock.pem);
  if (!leaf.checkPrivateKey(key)) throw new BadAnswerError('key_pem does not match the certificate in cert_pem');
  return `${keyBlock.pem}\n`;
}

/**
 * `requested` when `leaf` is for exactly that name. A label alone (`app`) is not enough: any `app.*`
 * certificate would match it, one for a name of an attacker's choosing too.
 */
function certifiedName(leaf: X509Certificate, requested: string): string {
  const name = requested.toLowerCase().replace(/\.$/, '');
  if (!name.includes('.')) throw new BadAnswerError(`${name} is a label, not a full name: ask for the full name the certificate is for`);
  if (leaf.checkHost(name, { wildcards: false }) === undefined)
    throw new BadAnswerError(`the certificate is not for ${name} (its names: ${leaf.subjectAltName ?? 'none'})`);
  return name;
}

function pemBlocks(text: string, field: string): { label: string; pem: string }[] {
  const blocks = [...text.matchAll(pemBlock)].map((match) => ({ label: match[1] ?? '', pem: match[0].replace(/\r\n/g, '\n') }));
  if (blocks.length === 0) throw new BadAnswerError(`${field} holds no PEM block`);
  return blocks;
}

/** A self-signed certificate: a root, which a chain a server presents leaves out. */
function isRoot(certificate: X509Certificate | undefined): boolean {
  return certificate !== undefined && certificate.checkIssued(certificate) && certificate.verify(certificate.publicKey);
}

function parseCertificate(pem: string, field: string): X509Certificate {
  try {
    return new X509Certificate(pem);
  } catch {
    throw new BadAnswerError(`${field} is not a readable X.509 certificate`);
  }
}

function parsePrivateKey(pem: string): KeyObject {
  try {
    return createPrivateKey(pem);
  } catch {
    throw new BadAnswerError('key_pem is not a readable private key');
  }
}
