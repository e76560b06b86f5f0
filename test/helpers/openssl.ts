// openssl as the ground truth for issued certificates: the chain verifies against the CA's root, the key matches.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface OpensslVerdict {
  /** What `openssl verify -CAfile root -untrusted chain leaf` printed (`…: OK` when it verifies). */
  verify: string;
  /** The public key of the certificate and of the private key are the same. */
  keyMatches: boolean;
}

export async function opensslCheck(material: { certPem: string; chainPem: string; keyPem: string }, rootPem: string): Promise<OpensslVerdict> {
  const dir = await mkdtemp(join(tmpdir(), 'outpost-openssl-'));
  try {
    const file = (name: string) => join(dir, name);
    await Promise.all([
      writeFile(file('leaf.pem'), material.certPem),
      writeFile(file('chain.pem'), material.chainPem),
      writeFile(file('key.pem'), material.keyPem),
      writeFile(file('root.pem'), rootPem),
    ]);
    const verify = await run('openssl', ['verify', '-CAfile', file('root.pem'), '-untrusted', file('chain.pem'), file('leaf.pem')]).then(
      ({ stdout }) => stdout.trim(),
      (error: { stdout?: string; stderr?: string }) => `${error.stdout ?? ''}${error.stderr ?? ''}`.trim(),
    );
    const [{ stdout: fromCertificate }, { stdout: fromKey }] = await Promise.all([
      run('openssl', ['x509', '-in', file('leaf.pem'), '-noout', '-pubkey']),
      run('openssl', ['pkey', '-in', file('key.pem'), '-pubout']),
    ]);
    return { verify, keyMatches: fromCertificate === fromKey };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
