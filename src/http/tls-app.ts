// uWS apps that speak TLS, from certificate material held in memory. uWS reads certificates only from
// files, when the app is made: the material is written to a private scratch folder for that moment and
// removed at once, so the key is on disk nowhere it was not already (the store it came from).
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TemplatedApp } from 'uWebSockets.js';
import { tlsServerApp } from './uws-app.js';
import { tlsCipherPolicy, type FrontTls, type TlsMaterial } from './tls-material.js';

export type { FrontTls, TlsMaterial } from './tls-material.js';

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

/** An SSLApp serving `material` (checked first). */
export function tlsApp({ material, scratchDir }: FrontTls): TemplatedApp {
  checkTlsMaterial(material);
  const dir = mkdtempSync(join(scratchDir, '.tls-'));
  try {
    const certFile = join(dir, 'fullchain.pem');
    const keyFile = join(dir, 'key.pem');
    writeFileSync(certFile, material.certPem, { mode: 0o600 });
    writeFileSync(keyFile, material.keyPem, { mode: 0o600 });
    return tlsServerApp({ cert_file_name: certFile, key_file_name: keyFile, ssl_ciphers: tlsCipherPolicy });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
