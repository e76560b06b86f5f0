// certhub off loopback without `tls`: HTTPS with a self-signed certificate made at first
// start and kept in the data directory, as Proxmox, Cockpit and UniFi do. Its SHA-256 fingerprint is
// printed beside the admin key, shown in the panel and written into every export, so that an agent
// pins it (as ssh pins a host key) until the operator sets `tls`.
import { createHash, X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { checkTlsMaterial } from '../../src/http/tls-material.js';
import type { TlsMaterial } from '../../src/http/tls-material.js';
import { writeSecretFile } from '../../src/store/secret.js';

export const selfSignedCertFile = 'self-signed.crt';
export const selfSignedKeyFile = 'self-signed.key';
/** Long: a new certificate means a new fingerprint, and every agent pinning the old one stops trusting. */
const lifetimeMs = 10 * 365 * 86_400_000;

export interface SelfSignedTls {
  material: TlsMaterial;
  /** `sha256:` and 64 lower-case hex digits of the DER certificate, the `pin` of the exports. */
  pin: string;
}

/** The data directory's self-signed certificate, made (key 0600) when there is none yet. */
export async function selfSignedTls(dataDir: string, baseDomain: string): Promise<SelfSignedTls> {
  const certPath = join(dataDir, selfSignedCertFile);
  const keyPath = join(dataDir, selfSignedKeyFile);
  const kept = await readKept(certPath, keyPath);
  const material = kept ?? (await created(baseDomain));
  if (kept === undefined) {
    // The key first: a certificate on disk always has its key beside it.
    await writeSecretFile(keyPath, material.keyPem);
    await writeSecretFile(certPath, material.certPem);
  }
  return { material, pin: certificatePin(material.certPem) };
}

export function certificatePin(certPem: string): string {
  return `sha256:${createHash('sha256').update(new X509Certificate(certPem).raw).digest('hex')}`;
}

async function readKept(certPath: string, keyPath: string): Promise<TlsMaterial | undefined> {
  let material: TlsMaterial;
  try {
    material = { certPem: await readFile(certPath, 'utf8'), keyPem: await readFile(keyPath, 'utf8') };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  checkTlsMaterial(material);
  return material;
}

async function created(baseDomain: string): Promise<TlsMaterial> {
  // Loaded here: the X.509 libraries cost every process a quarter of a second at start.
  const { createDemoCertificate } = await import('./domains/demo-certificate.js');
  const made = await createDemoCertificate(baseDomain, { now: Date.now(), lifetimeMs, subject: `CN=certhub on ${hostname()} (self-signed), O=certhub` });
  return { certPem: made.cert_pem, keyPem: made.key_pem };
}
