// The checks a CSR sent for an own_key domain passes before certhub keeps it and orders for it: one
// PEM block, a signature made by the key it carries, a key type certhub orders, and names that are
// exactly the domain's name set. Each refusal is ERR_BAD_REQUEST saying what to change.
import { OutpostError } from '../../../src/errors.js';
import { csrPemLabel, readCsr } from '../../../src/crypto/csr.js';
import { keyTypes, type KeyType } from '../key-types.js';

/** A CSR certhub accepted: its text and what it was found to ask for. */
export interface CheckedCsr {
  /** The CSR, one PEM block with LF line ends. */
  pem: string;
  keyType: KeyType;
  /** Its SubjectPublicKeyInfo, base64 of the DER: what the certificate ordered for it carries. */
  spki: string;
}

const csrBlock = new RegExp(`-----BEGIN ${csrPemLabel}-----\\r?\\n[A-Za-z0-9+/=\\r\\n]+?-----END ${csrPemLabel}-----`, 'g');

/**
 * Checks `input` (PEM) against `names`, the domain's name set (full names, lower case). The set is a
 * set: order does not count, a name given twice counts once, and the common name, when there is one,
 * must be one of them.
 */
export async function checkCsr(input: string, names: readonly string[]): Promise<CheckedCsr> {
  const blocks = [...input.matchAll(csrBlock)];
  if (blocks.length !== 1) throw refused(`csr must hold exactly one ${csrPemLabel} PEM block, not ${blocks.length}`);
  const pem = `${(blocks[0]?.[0] ?? '').replace(/\r\n/g, '\n')}\n`;
  let content: Awaited<ReturnType<typeof readCsr>>;
  try {
    content = await readCsr(pem);
  } catch (error) {
    throw refused(`csr cannot be read: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!content.signatureValid) throw refused("csr's signature does not verify with the public key it carries");
  if (content.keyType === undefined)
    throw refused(`csr's key is ${describeKey(content.publicKey)}; certhub orders certificates for ${keyTypes.join(', ')} keys only`);
  const problem = namesProblem(content.names, content.commonName, names);
  if (problem !== undefined) throw refused(problem);
  return { pem, keyType: content.keyType, spki: content.spki.toString('base64') };
}

/** Why a CSR's names are not exactly `expected`; undefined when they are. */
export function namesProblem(requested: readonly string[], commonName: string | undefined, expected: readonly string[]): string | undefined {
  const wanted = new Set(expected.map((name) => name.toLowerCase()));
  const asked = new Set(requested);
  const missing = [...wanted].filter((name) => !asked.has(name));
  const extra = [...asked].filter((name) => !wanted.has(name));
  const list = [...wanted].join(', ');
  if (asked.size === 0) return `csr names no DNS name in its subjectAltName; it must name exactly ${list}`;
  if (missing.length > 0 || extra.length > 0)
    return `csr's names must be exactly ${list}${missing.length > 0 ? `; missing: ${missing.join(', ')}` : ''}${extra.length > 0 ? `; not this domain's: ${extra.join(', ')}` : ''}`;
  if (commonName !== undefined && !wanted.has(commonName)) return `csr's common name ${commonName} is not one of ${list}`;
  return undefined;
}

function describeKey(key: { asymmetricKeyType?: string; asymmetricKeyDetails?: { namedCurve?: string; modulusLength?: number } }): string {
  const details = key.asymmetricKeyDetails ?? {};
  const shape = details.namedCurve ?? (details.modulusLength === undefined ? undefined : `${details.modulusLength} bits`);
  return `${key.asymmetricKeyType ?? 'of an unknown type'}${shape === undefined ? '' : ` (${shape})`}`;
}

function refused(message: string): OutpostError {
  return new OutpostError('ERR_BAD_REQUEST', message);
}
