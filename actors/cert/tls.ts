// certhub's own HTTPS (config `tls`): the certificate it starts with, and what it follows afterwards.
// `tls.cert_file` + `tls.key_file`: files kept by something else (certbot, an operator), re-read when
// they change. `tls.domain`: one of certhub's own domains, issued and renewed like any other; until it
// is issued, a temporary self-signed certificate is served. Without `tls`, off loopback: certhub's own
// self-signed certificate (cert-self-signed.ts), unless `insecure_http` asks for plain HTTP.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CerthubTls } from './site/protocol.js';
import type { CertConfig } from './config.js';
import { ConfigError } from '../../src/errors.js';
import { checkTlsMaterial } from '../../src/http/tls-material.js';
import { inConfigFile } from '../../src/config/load.js';
import { readNamedFile } from '../../src/config/named-file.js';
import type { FrontTls, TlsMaterial } from '../../src/http/tls-material.js';
import { selfSignedTls } from './self-signed.js';
import { isLoopbackOnly } from '../../src/net/address.js';

export interface CerthubTlsSetup {
  front: FrontTls;
  site: CerthubTls;
}

/** How certhub serves on `host`: which certificate, if any, and what the start line and the panel show. */
export interface CerthubServing {
  /** The front's HTTPS; undefined: plain HTTP. */
  front: FrontTls | undefined;
  /** What the configured `tls` follows after start. */
  follow: CerthubTls | undefined;
  /** The fingerprint of the self-signed certificate served in place of a `tls`. */
  pin: string | undefined;
  /** Plain HTTP off loopback, as `insecure_http` allowed. */
  insecureHttp: boolean;
}

type ServingConfig = Pick<CertConfig, 'tls' | 'insecure_http' | 'base_domain'>;

/**
 * `tls`: the configured certificate. `loopback-http`: plain HTTP nobody else can reach. `insecure-http`:
 * plain HTTP off loopback, as asked. `self-signed`: off loopback without `tls`, the secure default.
 */
export function servingKind(config: ServingConfig, host: string): 'tls' | 'loopback-http' | 'insecure-http' | 'self-signed' {
  if (config.tls !== undefined) return 'tls';
  if (isLoopbackOnly(host)) return 'loopback-http';
  return config.insecure_http ? 'insecure-http' : 'self-signed';
}

export async function certhubServing(dataDir: string, config: ServingConfig, host: string): Promise<CerthubServing> {
  const kind = servingKind(config, host);
  switch (kind) {
    case 'tls': {
      if (config.tls === undefined) throw new Error('servingKind says tls');
      const { front, site } = await certhubTls(dataDir, config.tls);
      return { front, follow: site, pin: undefined, insecureHttp: false };
    }
    case 'loopback-http':
    case 'insecure-http':
      return { front: undefined, follow: undefined, pin: undefined, insecureHttp: kind === 'insecure-http' };
    case 'self-signed': {
      const { material, pin } = await selfSignedTls(dataDir, config.base_domain);
      return { front: { material, scratchDir: dataDir }, follow: undefined, pin, insecureHttp: false };
    }
  }
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
      return await readNamedFile(option, path);
    } catch (error) {
      throw inConfigFile(configPath, error);
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
  const { createDemoCertificate } = await import('./domains/demo-certificate.js');
  const { cert_pem: certPem, key_pem: keyPem } = await createDemoCertificate(name, { now: Date.now() });
  return { certPem, keyPem };
}
