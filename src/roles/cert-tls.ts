// certhub's own HTTPS (config `tls`): the certificate it starts with, and what it follows afterwards.
// `tls.cert_file` + `tls.key_file`: files kept by something else (certbot, an operator), re-read when
// they change. `tls.domain`: one of certhub's own domains, issued and renewed like any other; until it
// is issued, a temporary self-signed certificate is served.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CerthubTls } from '../../actors/http-front/sites/certhub/protocol.js';
import type { CertConfig } from '../config/cert.js';
import { ConfigError } from '../errors.js';
import { checkTlsMaterial } from '../http/tls-app.js';
import type { FrontTls, TlsMaterial } from '../http/tls-material.js';

export interface CerthubTlsSetup {
  front: FrontTls;
  site: CerthubTls;
}

export async function certhubTls(dataDir: string, tls: NonNullable<CertConfig['tls']>): Promise<CerthubTlsSetup> {
  const configPath = join(dataDir, 'config.json');
  if (tls.domain !== undefined) {
    const issued = await issuedMaterial(dataDir, tls.domain);
    const material = issued ?? (await temporaryMaterial(tls.domain));
    return { front: { material, scratchDir: dataDir }, site: { follow: { domain: tls.domain }, temporary: issued === undefined } };
  }
  if (tls.cert_file === undefined || tls.key_file === undefined) throw new Error('tls is checked by the config schema');
  const material = await readTlsFiles(tls.cert_file, tls.key_file, configPath);
  return { front: { material, scratchDir: dataDir }, site: { follow: { certFile: tls.cert_file, keyFile: tls.key_file }, temporary: false } };
}

async function readTlsFiles(certFile: string, keyFile: string, configPath: string): Promise<TlsMaterial> {
  const read = async (path: string, option: string) => {
    try {
      return await readFile(path, 'utf8');
    } catch (error) {
      throw new ConfigError([`${configPath}: ${option}: ${path} cannot be read: ${(error as Error).message}`]);
    }
  };
  const material = { certPem: await read(certFile, 'tls.cert_file'), keyPem: await read(keyFile, 'tls.key_file') };
  try {
    checkTlsMaterial(material);
  } catch (error) {
    throw new ConfigError([`${configPath}: tls: ${(error as Error).message}`]);
  }
  return material;
}

/** The material of `name` as the domain store holds it, if it was issued. */
async function issuedMaterial(dataDir: string, name: string): Promise<TlsMaterial | undefined> {
  let text: string;
  try {
    text = await readFile(join(dataDir, 'domains', `${name}.json`), 'utf8');
  } catch {
    return undefined;
  }
  const stored = JSON.parse(text) as { material?: { cert_pem?: unknown; chain_pem?: unknown; key_pem?: unknown } | null };
  const { cert_pem: cert, chain_pem: chain, key_pem: key } = stored.material ?? {};
  if (typeof cert !== 'string' || typeof chain !== 'string' || typeof key !== 'string') return undefined;
  return { certPem: cert + chain, keyPem: key };
}

async function temporaryMaterial(name: string): Promise<TlsMaterial> {
  // Loaded here, not with this module: the X.509 libraries took a quarter of a second of every
  // process's start (every role's, `--version` included), for a certificate made only in this case.
  const { createDemoCertificate } = await import('../../actors/domains/demo-certificate.js');
  const { cert_pem: certPem, key_pem: keyPem } = await createDemoCertificate(name, { now: Date.now() });
  return { certPem, keyPem };
}
