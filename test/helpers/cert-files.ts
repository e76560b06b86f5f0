// Files and records for tests of certhub's storage: a data directory removed after the test, domain
// records, and PEM material whose blocks say which version they belong to (so a test can tell a
// consistent set from a mixed one without real keys).
import type { ExecutionContext } from 'ava';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Material } from '../../actors/cert/acme/protocol.js';
import { newDomainRecord, type DomainRecord } from '../../actors/cert/domains/record.js';
import { newDomainToken } from '../../actors/cert/domains/token.js';

export async function certDataDir(t: ExecutionContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'certhub-'));
  // An order the test started may still be writing its material as the test ends (DomainBook.stop
  // does not wait for running orders, which a crash must survive anyway): rm retries ENOTEMPTY.
  t.teardown(() => rm(dir, { recursive: true, force: true, maxRetries: 10 }));
  return dir;
}

export function testRecord(label: string, now = Date.UTC(2025, 0, 1)): DomainRecord {
  return newDomainRecord({ name: `${label}.example.com`, label, target: '203.0.113.5', record_type: 'A', token: newDomainToken() }, now);
}

/** A PEM block whose base64 body decodes to `text`, padded to about `size` bytes like a real one. */
export function pemBlock(label: string, text: string, size = 600): string {
  const body = Buffer.from(text.padEnd(size, '.')).toString('base64');
  return `-----BEGIN ${label}-----\n${body.replace(/(.{64})/g, '$1\n').replace(/\n$/, '')}\n-----END ${label}-----\n`;
}

/** Material whose three parts all name `version`. */
export function versionedMaterial(version: string): Material {
  return {
    cert_pem: pemBlock('CERTIFICATE', `cert ${version}`, 1300),
    chain_pem: pemBlock('CERTIFICATE', `chain ${version}`, 1400),
    key_pem: pemBlock('PRIVATE KEY', `key ${version}`, 180),
  };
}

/** The version each part of versioned material names. */
export function materialVersions(material: Material): string[] {
  return [material.cert_pem, material.chain_pem, material.key_pem].map((pem) => {
    const body = pem
      .split('\n')
      .filter((line) => !line.startsWith('-----'))
      .join('');
    return Buffer.from(body, 'base64').toString().replace(/\.+$/, '').split(' ')[1] ?? '';
  });
}
