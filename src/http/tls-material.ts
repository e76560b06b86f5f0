// The certificate a front serves over HTTPS, as it travels in an actor's config (no Node module here:
// the http-front protocol, which the pages type-check, refers to it).
import { X509Certificate, createPrivateKey } from 'node:crypto';

/**
 * The TLS 1.2 suites every TLS server of the project offers: Mozilla's "intermediate" policy, cut to
 * one suite per key type. uWS links BoringSSL and exposes no server-preference option, so with several
 * suites the client's order would decide; with one per key type the server's choice is the only one.
 * ECDHE (forward secrecy) and AES-GCM (no CBC: no LUCKY13) only. TLS 1.0 and 1.1 are off in uWS
 * itself; TLS 1.3's suites are BoringSSL's fixed AEAD set (AES-GCM, ChaCha20-Poly1305), all ECDHE.
 */
export const tlsCipherPolicy = 'ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256';

export interface TlsMaterial {
  /** The certificate, then the chain that follows it, PEM. */
  certPem: string;
  /** Its private key, PEM. */
  keyPem: string;
}

export interface FrontTls {
  material: TlsMaterial;
  /** A folder of the server's own (mode 0700) where the material is written while an app is made. */
  scratchDir: string;
}

/** Throws, naming what is wrong, unless `material` is a certificate with its private key. */
export function checkTlsMaterial(material: TlsMaterial): void {
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(material.certPem);
  } catch (error) {
    throw new Error(`the certificate cannot be read: ${(error as Error).message}`);
  }
  let key;
  try {
    key = createPrivateKey(material.keyPem);
  } catch (error) {
    throw new Error(`the private key cannot be read: ${(error as Error).message}`);
  }
  if (!certificate.checkPrivateKey(key)) throw new Error(`the private key is not the key of the certificate for ${certificate.subject.replace(/\n/g, ', ')}`);
}
