// Where certhub-agent keeps a domain's material on disk: one folder per domain, named as certbot names
// its files so existing web server configs point at them unchanged. `fetch` writes them; `proxy` reads
// them (and picks up a change without a restart).
import { join } from 'node:path';

export interface MaterialPaths {
  /** The folder of the domain: `<dir>/<domain>`. */
  folder: string;
  /** The leaf certificate alone. */
  cert: string;
  /** The issuer chain without the leaf. */
  chain: string;
  /** Leaf then chain: what a TLS server presents. */
  fullchain: string;
  /** The private key, mode 0600. */
  key: string;
  /** With --own-key: the key made for a CSR whose certificate has not come yet, mode 0600; it becomes privkey.pem with that certificate. */
  nextKey: string;
  /** Full chain then key in one file, mode 0600: HAProxy's `crt` (written with `combined_pem`). */
  combined: string;
  /** Key, leaf and chain in one PKCS#12 file encrypted with a password, mode 0600 (written with `--format p12`). */
  p12: string;
}

export function materialPaths(dir: string, domain: string): MaterialPaths {
  const folder = join(dir, domain);
  return {
    folder,
    cert: join(folder, 'cert.pem'),
    chain: join(folder, 'chain.pem'),
    fullchain: join(folder, 'fullchain.pem'),
    key: join(folder, 'privkey.pem'),
    nextKey: join(folder, 'privkey.next.pem'),
    combined: join(folder, 'combined.pem'),
    p12: join(folder, 'bundle.p12'),
  };
}
