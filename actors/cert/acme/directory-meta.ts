// What a CA says about itself in its directory's `meta` (RFC 8555 §7.1.1): the URL of its terms of
// service, whether it registers accounts only with an external account binding, and the profiles it
// offers (draft-ietf-acme-profiles). The setup wizard reads it before it asks about them; no
// acme-client here, the wizard loads it nowhere else.
import { get } from 'node:https';
import { secureContextTrusting } from '../../../src/net/extra-ca.js';
import { readOfferedProfiles, type OfferedProfiles } from './profiles.js';

export interface DirectoryMeta {
  /** meta.termsOfService: the URL of the terms an account agrees to; undefined when the CA names none. */
  termsOfService: string | undefined;
  /** meta.externalAccountRequired. */
  externalAccountRequired: boolean;
  /** meta.profiles; null when the CA lists none. */
  profiles: OfferedProfiles | null;
}

/** A directory is a few hundred bytes; anything past this is not one. */
const maxDirectoryBytes = 64 * 1024;

export function directoryMetaOf(directory: unknown): DirectoryMeta {
  const meta = typeof directory === 'object' && directory !== null ? (directory as { meta?: unknown }).meta : undefined;
  const fields = typeof meta === 'object' && meta !== null ? (meta as Record<string, unknown>) : {};
  return {
    termsOfService: typeof fields.termsOfService === 'string' && fields.termsOfService !== '' ? fields.termsOfService : undefined,
    externalAccountRequired: fields.externalAccountRequired === true,
    profiles: readOfferedProfiles(fields.profiles),
  };
}

/** GETs the directory (trusting `caBundlePem` besides the system's roots) and reads its meta; throws with the reason when it cannot. */
export function readDirectoryMeta(directoryUrl: string, caBundlePem: string | undefined, timeoutMs = 15_000): Promise<DirectoryMeta> {
  return new Promise((resolve, reject) => {
    const request = get(
      directoryUrl,
      { timeout: timeoutMs, ...(caBundlePem === undefined ? {} : { secureContext: secureContextTrusting(caBundlePem) }) },
      (response) => {
        const chunks: Buffer[] = [];
        let length = 0;
        response.on('data', (chunk: Buffer) => {
          length += chunk.length;
          if (length > maxDirectoryBytes) request.destroy(new Error(`the answer is larger than ${maxDirectoryBytes} bytes: not an ACME directory`));
          else chunks.push(chunk);
        });
        response.on('end', () => {
          if (response.statusCode !== 200) return reject(new Error(`it answered HTTP ${response.statusCode ?? '?'}`));
          try {
            resolve(directoryMetaOf(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
          } catch {
            reject(new Error('its answer is not JSON: not an ACME directory'));
          }
        });
        response.on('error', reject);
      },
    );
    request.on('timeout', () => request.destroy(new Error(`no answer in ${timeoutMs / 1000} s`)));
    request.on('error', (error: NodeJS.ErrnoException) =>
      reject(new Error(error.code === undefined || error.message.includes(error.code) ? error.message : `${error.code} ${error.message}`)),
    );
  });
}
