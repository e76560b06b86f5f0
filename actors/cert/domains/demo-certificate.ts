// `certhub run --demo`: instead of asking a CA, a domain gets a self-signed certificate whose
// subject and issuer say it is a demo certificate, so every panel and client path can be tried with
// nothing contacted. Made with @peculiar/x509 over Node's WebCrypto (no openssl process, no
// node-forge): it builds exactly the extensions a server certificate needs, and it is already in the
// tree as a dependency of acme-client.
import { generateKeyPairSync, randomBytes, webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { keyShape, type KeyType } from '../key-types.js';
import type { Material } from '../acme/protocol.js';

export const demoIssuerName = 'certhub demo certificate - not trusted';
export const demoLifetimeMs = 90 * 86_400_000;
/** Clients with a clock a little behind still accept a certificate made this instant. */
const backdateMs = 60_000;

export interface DemoCertificate extends Material {
  /** Epoch milliseconds (whole seconds: X.509 keeps no fractions). */
  notBefore: number;
  notAfter: number;
}

export interface DemoOptions {
  /** Epoch milliseconds (the caller's Clock). */
  now: number;
  keyType?: KeyType;
  lifetimeMs?: number;
  /** The subject (and issuer) distinguished name; the demo's by default. */
  subject?: string;
  /** The names the certificate covers beside `name`. */
  altNames?: readonly string[];
}

function algorithmFor(keyType: KeyType): webcrypto.EcKeyGenParams | webcrypto.RsaHashedKeyGenParams {
  const shape = keyShape(keyType);
  return shape.kind === 'ec'
    ? { name: 'ECDSA', namedCurve: shape.curve }
    : { name: 'RSASSA-PKCS1-v1_5', modulusLength: shape.bits, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' };
}

/**
 * The key pair, made on this thread rather than as a thread-pool job: Node 20 aborts the whole
 * process (`FATAL ERROR: v8::ToLocalChecked Empty MaybeLocal` in KeyObjectHandle::Create) when a
 * worker is terminated while an asynchronous key generation of its is finishing, and the supervisor
 * terminates a domains thread that hangs or is killed. A P-256 key costs about a millisecond.
 */
async function demoKeyPair(keyType: KeyType, algorithm: webcrypto.EcKeyGenParams | webcrypto.RsaHashedKeyGenParams): Promise<webcrypto.CryptoKeyPair> {
  const shape = keyShape(keyType);
  const pair =
    shape.kind === 'ec'
      ? generateKeyPairSync('ec', { namedCurve: shape.curve })
      : generateKeyPairSync('rsa', { modulusLength: shape.bits, publicExponent: 0x10001 });
  const privateDer = pair.privateKey.export({ type: 'pkcs8', format: 'der' });
  const publicDer = pair.publicKey.export({ type: 'spki', format: 'der' });
  return {
    privateKey: await webcrypto.subtle.importKey('pkcs8', privateDer, algorithm, true, ['sign']),
    publicKey: await webcrypto.subtle.importKey('spki', publicDer, algorithm, true, ['verify']),
  };
}

/** A self-signed certificate for `name` (a full domain name) and its key; the chain is empty. */
export async function createDemoCertificate(name: string, options: DemoOptions): Promise<DemoCertificate> {
  const keyType = options.keyType ?? 'ecdsa-p256';
  const keyAlgorithm = algorithmFor(keyType);
  const keys = await demoKeyPair(keyType, keyAlgorithm);
  const notBefore = Math.floor((options.now - backdateMs) / 1000) * 1000;
  const notAfter = notBefore + (options.lifetimeMs ?? demoLifetimeMs);
  const usages =
    keyShape(keyType).kind === 'ec' ? x509.KeyUsageFlags.digitalSignature : x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment;
  const serial = randomBytes(16);
  serial[0] = ((serial[0] ?? 0) & 0x7f) | 0x01; // positive, and never a leading zero byte
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial.toString('hex'),
    name: options.subject ?? `CN=${demoIssuerName}, O=certhub demo`,
    notBefore: new Date(notBefore),
    notAfter: new Date(notAfter),
    signingAlgorithm: { ...keyAlgorithm, hash: 'SHA-256' },
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(usages, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension([name, ...(options.altNames ?? [])].map((value) => ({ type: 'dns' as const, value }))),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      // Its own key as the authority: renewal code reading the ARI CertID works in demo too.
      await x509.AuthorityKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  return {
    cert_pem: `${certificate.toString('pem')}\n`,
    chain_pem: '',
    key_pem: `${x509.PemConverter.encode(pkcs8, 'PRIVATE KEY')}\n`,
    notBefore,
    notAfter,
  };
}
