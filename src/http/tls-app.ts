// uWS apps that speak TLS, from certificate material held in memory. uWS reads certificates only from
// files, when the app is made: the material is written to a private scratch folder for that moment and
// removed at once, so the key is on disk nowhere it was not already (the store it came from).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TemplatedApp } from 'uWebSockets.js';
import { tlsServerApp } from './uws-app.js';
import { checkTlsMaterial, tlsCipherPolicy, type FrontTls } from './tls-material.js';

/** An SSLApp serving `material` (checked first). */
export function tlsApp({ material, scratchDir }: FrontTls): TemplatedApp {
  checkTlsMaterial(material);
  return withTlsFiles(scratchDir, material.certPem, material.keyPem, (certFile, keyFile) =>
    tlsServerApp({ cert_file_name: certFile, key_file_name: keyFile, ssl_ciphers: tlsCipherPolicy }),
  );
}

/**
 * Runs `use` with a certificate chain and its key in files (0600) of a private folder made in
 * `scratchDir`, removed as soon as `use` returns: uWS reads certificates only from files, when an app
 * or a server name is made. A crash leaves the folder only if it comes in that moment.
 */
export function withTlsFiles<T>(scratchDir: string, certPem: string | Buffer, keyPem: string | Buffer, use: (certFile: string, keyFile: string) => T): T {
  const dir = mkdtempSync(join(scratchDir, '.tls-'));
  try {
    const certFile = join(dir, 'fullchain.pem');
    const keyFile = join(dir, 'key.pem');
    writeFileSync(certFile, certPem, { mode: 0o600 });
    writeFileSync(keyFile, keyPem, { mode: 0o600 });
    return use(certFile, keyFile);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
