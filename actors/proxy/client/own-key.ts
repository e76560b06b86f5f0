// `certhub-agent fetch --own-key`: the host makes and keeps the domain's private key, and certhub never
// sees it. The agent sends certhub a CSR signed with that key (POST /api/cert/<domain>/csr); certhub
// orders for it and serves the certificate without a key; the agent pairs the certificate with its key
// and writes the two only when they match.
//
// The key of the certificate served is privkey.pem. A key made for a CSR whose certificate has not come
// yet waits beside it as privkey.next.pem (0600), so the served pair stays whole until its successor is
// there: it becomes privkey.pem in the same write as its certificate. A new key is made when there is
// none, and with --rekey; otherwise a CSR (sent when certhub has no certificate for the key, or asks
// for one with csr_wanted) carries the key kept.
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { chmod, readFile, rm } from 'node:fs/promises';
import { setTimeout as wait } from 'node:timers/promises';
import { createCsrPem } from '../../../src/crypto/csr.js';
import type { KeyType } from '../../../src/crypto/key-types.js';
import { newPrivateKeyPem } from '../../../src/crypto/private-key.js';
import { makeDirectories } from '../../../src/store/directories.js';
import { writeSecretFile } from '../../../src/store/secret.js';
import type { CsrAnswer, CsrRequest } from '../../cert/index.js';
import type { CertificateMaterial } from './certificate-answer.js';
import { fetchCertificate, getFromCerthub, postToCerthub, type CertificateRequest } from './fetch-certificate.js';
import { CertificateFetchError } from './fetch-failure.js';
import { materialPaths } from './material-files.js';

export interface OwnKeySettings {
  /** The type of a key made here (--key-type): one certhub orders certificates for. */
  keyType: KeyType;
  /** Make a new key and send its CSR (--rekey), even though certhub serves a certificate for the key kept. */
  rekey: boolean;
  /** How long a fetch waits for the certificate of a CSR it sent; default ownKeyWaitMs. */
  waitMs?: number;
  /** How often certhub is asked meanwhile; default 2 s. */
  pollMs?: number;
}

/** What a fetch with the host's key found: the material with that key, and what to do once it is written. */
export interface OwnKeyFetch {
  material: CertificateMaterial;
  /** After the material is written: the next key, now privkey.pem, is removed. */
  written: () => Promise<void>;
}

/** How long a fetch waits for a certificate after sending its CSR: an order's DNS-01 propagation takes a minute or two at most CAs. */
export const ownKeyWaitMs = 300_000;

/** The domain's material with the host's own key; throws CertificateFetchError. */
export async function fetchWithOwnKey(request: CertificateRequest, dir: string, settings: OwnKeySettings): Promise<OwnKeyFetch> {
  const paths = materialPaths(dir, request.domain);
  const asked: CertificateRequest = { ...request, ownKey: true };
  let next = await readKey(paths.nextKey);
  const kept = await readKey(paths.key);
  const paired = (material: CertificateMaterial): OwnKeyFetch | undefined => {
    if (next !== undefined && matches(material, next)) return { material: { ...material, keyPem: next }, written: () => rm(paths.nextKey, { force: true }) };
    if (!settings.rekey && material.csrWanted !== true && kept !== undefined && matches(material, kept))
      return { material: { ...material, keyPem: kept }, written: () => Promise.resolve() };
    return undefined;
  };
  const first = await fetchOrNone(asked);
  const served = first === undefined ? undefined : paired(first);
  if (served !== undefined) return served;
  // A CSR: for the next key when one waits, else for the key kept (unless a re-key is asked), else for a new one.
  if (next === undefined && (settings.rekey || kept === undefined)) {
    await makeDirectories(paths.folder, 0o700);
    await chmod(paths.folder, 0o700);
    next = newPrivateKeyPem({ keyType: settings.keyType });
    await writeSecretFile(paths.nextKey, next);
  }
  const key = next ?? kept ?? '';
  await sendCsr(asked, await createCsrPem(key, await wantedNames(asked)));
  const deadline = Date.now() + (settings.waitMs ?? ownKeyWaitMs);
  for (;;) {
    await wait(settings.pollMs ?? 2000, undefined, request.signal === undefined ? {} : { signal: request.signal }).catch(() => {});
    if (request.signal?.aborted === true) throw new CertificateFetchError('no-answer', `the fetch of ${request.domain} was stopped`);
    const answer = await fetchOrNone(asked);
    const found = answer === undefined ? undefined : paired(answer);
    if (found !== undefined) return found;
    if (Date.now() >= deadline)
      throw new CertificateFetchError(
        'not-issued',
        `certhub has the CSR for ${request.domain} and has not issued its certificate within ${Math.round((settings.waitMs ?? ownKeyWaitMs) / 1000)} s; the next fetch takes it`,
      );
  }
}

/** GET /api/cert/<domain>/csr: the names the CSR must hold (the domain's whole name set); throws CertificateFetchError. */
async function wantedNames(request: CertificateRequest): Promise<string[]> {
  const answer = await getFromCerthub(request, `api/cert/${encodeURIComponent(request.domain)}/csr`, 'asked');
  if (answer.status === 200) {
    const names = (JSON.parse(answer.body) as Partial<CsrRequest>).names;
    if (Array.isArray(names) && names.length > 0 && names.every((name) => typeof name === 'string')) return names;
  }
  throw new CertificateFetchError(
    answer.status === 401 ? 'token-refused' : 'bad-answer',
    `${answer.server.origin} did not say which names the CSR for ${request.domain} holds (HTTP ${answer.status}: ${refusalReason(answer.body)})`,
  );
}

/** POST /api/cert/<domain>/csr; throws CertificateFetchError with certhub's reason unless it is kept (202). */
async function sendCsr(request: CertificateRequest, csr: string): Promise<CsrAnswer> {
  const answer = await postToCerthub(request, `api/cert/${encodeURIComponent(request.domain)}/csr`, 'sent its CSR to', { json: JSON.stringify({ csr }) });
  if (answer.status === 202) return JSON.parse(answer.body) as CsrAnswer;
  throw new CertificateFetchError(
    answer.status === 401 ? 'token-refused' : 'bad-answer',
    `${answer.server.origin} refused the CSR for ${request.domain} (HTTP ${answer.status}: ${refusalReason(answer.body)})`,
  );
}

/** certhub's `{"error"}`, or the start of a body that is not JSON. */
function refusalReason(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: unknown };
    if (typeof parsed.error === 'string') return parsed.error;
  } catch {
    // Not JSON: the start of the body says what it is.
  }
  return body.slice(0, 300);
}

/** The answer's material, or undefined while certhub has no certificate for the domain (409). */
async function fetchOrNone(request: CertificateRequest): Promise<CertificateMaterial | undefined> {
  try {
    return await fetchCertificate(request);
  } catch (error) {
    if (error instanceof CertificateFetchError && error.kind === 'not-issued') return undefined;
    throw error;
  }
}

function matches(material: CertificateMaterial, keyPem: string): boolean {
  return new X509Certificate(material.certPem).checkPrivateKey(createPrivateKey(keyPem));
}

async function readKey(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
