// Self-signed certificates made by openssl: the servers the benchmarks start, Pebble's HTTPS and the
// tests that need a certificate made by a tool other than ours all ask for one the same way.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** openssl's arguments for a new P-256 key, unencrypted. */
export const p256KeyArgs = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];

export interface SelfSignedRequest {
  keyFile: string;
  certFile: string;
  /** As openssl's -subj takes it: `/CN=localhost`. */
  subject: string;
  /** Days of validity; 2 unless given. */
  days?: number;
  /** openssl's -set_serial, as `0x87654321`. */
  serial?: string;
  /** Each one an -addext: `subjectAltName=DNS:localhost`. */
  extensions?: string[];
}

/** Writes a new P-256 key and a self-signed certificate for it. */
export async function writeSelfSigned(request: SelfSignedRequest): Promise<void> {
  const serial = request.serial === undefined ? [] : ['-set_serial', request.serial];
  const extensions = (request.extensions ?? []).flatMap((extension) => ['-addext', extension]);
  const validity = ['-days', String(request.days ?? 2), '-subj', request.subject];
  await run('openssl', ['req', '-x509', ...p256KeyArgs, '-keyout', request.keyFile, '-out', request.certFile, ...validity, ...serial, ...extensions]);
}
