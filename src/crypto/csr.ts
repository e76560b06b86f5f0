// Certificate signing requests (PKCS#10, RFC 2986): certhub-agent --own-key makes one with the key it
// keeps, and certhub reads the one it is sent. Built and read with @peculiar/x509 over Node's WebCrypto,
// as the demo certificates are; no hand-written ASN.1.
import { createPrivateKey, createPublicKey, webcrypto, type KeyObject } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { keyTypes, type KeyType } from './key-types.js';

/** What a CSR asks for, as read from it. */
export interface CsrContent {
  /** The dNSName entries of its subjectAltName, lower case, in their order. */
  names: string[];
  /** The subject's common name, lower case; undefined when it has none. */
  commonName: string | undefined;
  /** The public key the certificate is to carry. */
  publicKey: KeyObject;
  /** Its SubjectPublicKeyInfo, DER: what a certificate for this CSR carries byte for byte. */
  spki: Buffer;
  /** The key type, when it is one certhub orders (keyTypes); undefined for any other. */
  keyType: KeyType | undefined;
  /** Whether the CSR's signature verifies with its own public key (proof that its maker holds the key). */
  signatureValid: boolean;
}

/** id-ce-subjectAltName (RFC 5280 section 4.2.1.6). */
const subjectAltNameOid = '2.5.29.17';

/** The PEM label of a CSR as OpenSSL and every ACME client write it. */
export const csrPemLabel = 'CERTIFICATE REQUEST';

/** A CSR for `names` (the first is also the common name), signed with `keyPem`; PEM text. */
export async function createCsrPem(keyPem: string, names: readonly string[]): Promise<string> {
  const privateKey = createPrivateKey(keyPem);
  const publicKey = createPublicKey(privateKey);
  const algorithm = signingAlgorithmOf(publicKey);
  const keys = {
    privateKey: await webcrypto.subtle.importKey('pkcs8', privateKey.export({ type: 'pkcs8', format: 'der' }), algorithm, false, ['sign']),
    publicKey: await webcrypto.subtle.importKey('spki', publicKey.export({ type: 'spki', format: 'der' }), algorithm, true, ['verify']),
  };
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({
    name: [{ CN: [names[0] ?? ''] }],
    keys,
    signingAlgorithm: algorithm,
    extensions: [new x509.SubjectAlternativeNameExtension(names.map((value) => ({ type: 'dns' as const, value })))],
  });
  return `${csr.toString('pem')}\n`;
}

/** Reads a CSR (PEM); throws an Error saying why when it is not one. */
export async function readCsr(pem: string): Promise<CsrContent> {
  let csr: x509.Pkcs10CertificateRequest;
  try {
    csr = new x509.Pkcs10CertificateRequest(pem);
  } catch (error) {
    throw new Error(`it is not a PKCS#10 certificate request (${error instanceof Error ? error.message : String(error)})`, { cause: error });
  }
  const spki = Buffer.from(csr.publicKey.rawData);
  const publicKey = createPublicKey({ key: spki, format: 'der', type: 'spki' });
  let signatureValid: boolean;
  try {
    signatureValid = await csr.verify();
  } catch {
    signatureValid = false;
  }
  const san = csr.getExtension(subjectAltNameOid);
  const items = san instanceof x509.SubjectAlternativeNameExtension ? san.names.items : [];
  const names = items.filter((item) => item.type === 'dns').map((item) => item.value.toLowerCase());
  const commonName = csr.subjectName.getField('CN')[0]?.toLowerCase();
  return { names, commonName, publicKey, spki, keyType: keyTypeOf(publicKey), signatureValid };
}

/** The key type of a public or private key, when it is one of keyTypes. */
export function keyTypeOf(key: KeyObject): KeyType | undefined {
  const details = key.asymmetricKeyDetails ?? {};
  let type: string | undefined;
  if (key.asymmetricKeyType === 'ec') type = details.namedCurve === 'prime256v1' ? 'ecdsa-p256' : details.namedCurve === 'secp384r1' ? 'ecdsa-p384' : undefined;
  else if (key.asymmetricKeyType === 'rsa') type = `rsa-${details.modulusLength ?? 0}`;
  return keyTypes.find((known) => known === type);
}

/** The WebCrypto signing algorithm for the key: ECDSA with the curve's own hash, RSA PKCS#1 v1.5 with SHA-256. */
function signingAlgorithmOf(publicKey: KeyObject): (webcrypto.EcKeyImportParams & webcrypto.EcdsaParams) | webcrypto.RsaHashedImportParams {
  if (publicKey.asymmetricKeyType === 'ec') {
    const curve = publicKey.asymmetricKeyDetails?.namedCurve === 'secp384r1' ? 'P-384' : 'P-256';
    return { name: 'ECDSA', namedCurve: curve, hash: curve === 'P-384' ? 'SHA-384' : 'SHA-256' };
  }
  return { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };
}
