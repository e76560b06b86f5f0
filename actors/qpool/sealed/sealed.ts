// Encryption of the pool's files at rest (the snapshot and its journal): AES-256-GCM under a key derived
// from a passphrase with PBKDF2-HMAC-SHA256. The slow derivation runs once per process; each file then
// gets its own subkey (HKDF with a random per-file salt), so a file's records can number their nonces
// 0, 1, 2, ... without a nonce ever repeating under one key.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { OutpostError } from '../../../src/errors.js';
import { qpoolErrors } from '../error-codes.js';

/** OWASP's Password Storage Cheat Sheet figure for PBKDF2-HMAC-SHA256 (2023, current in 2026). */
export const pbkdf2Iterations = 600_000;
/** A file claiming more would make opening it a denial of service. */
export const maxPbkdf2Iterations = 10_000_000;
export const kdfSaltBytes = 16;
export const fileSaltBytes = 32;
export const nonceBytes = 12;
export const tagBytes = 16;

/** The passphrase derivation a file was written with; stored in its header. */
export interface KdfParams {
  salt: Buffer;
  iterations: number;
}

/** Derives the 32-byte master key; runs on the shared job pool, never on an actor's loop. */
export type DeriveMasterKey = (passphrase: string, params: KdfParams) => Promise<Buffer>;

export class DecryptionError extends OutpostError {
  override readonly name: string = 'DecryptionError';
  constructor(message: string, options?: ErrorOptions) {
    super(qpoolErrors.ERR_SEALED_FILE, message, options);
  }
}

export function newKdfParams(): KdfParams {
  return { salt: randomBytes(kdfSaltBytes), iterations: pbkdf2Iterations };
}

export function newFileSalt(): Buffer {
  return randomBytes(fileSaltBytes);
}

/** The key one file's records are sealed with. */
export function fileKey(masterKey: Buffer, fileSalt: Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', masterKey, fileSalt, `outpost ${purpose}`, 32));
}

/** The nonce of record number `sequence` in a file. */
export function sequenceNonce(sequence: number): Buffer {
  const nonce = Buffer.alloc(nonceBytes);
  nonce.writeUIntBE(sequence, nonceBytes - 6, 6);
  return nonce;
}

/**
 * Seals a plaintext given in pieces, each consumed before the next is asked for (a generator may
 * reuse one buffer for all of them). Returns the ciphertext in pieces followed by the 16-byte tag,
 * never joined: a pool snapshot is megabytes, and every copy of it is garbage.
 */
export function seal(key: Buffer, nonce: Buffer, plaintext: Iterable<Uint8Array>, associatedData: Uint8Array): Buffer[] {
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  cipher.setAAD(associatedData);
  const sealed: Buffer[] = [];
  for (const piece of plaintext) sealed.push(cipher.update(piece));
  sealed.push(cipher.final(), cipher.getAuthTag());
  return sealed;
}

/** The plaintext of `sealed`; a wrong key or any altered byte (of it or of the associated data) throws. */
export function unseal(key: Buffer, nonce: Buffer, sealed: Uint8Array, associatedData: Uint8Array): Buffer {
  if (sealed.byteLength < tagBytes) throw new DecryptionError('a sealed record is shorter than its tag');
  const body = sealed.subarray(0, sealed.byteLength - tagBytes);
  const decipher = createDecipheriv('aes-256-gcm', key, nonce);
  decipher.setAAD(associatedData);
  decipher.setAuthTag(sealed.subarray(sealed.byteLength - tagBytes));
  try {
    return Buffer.concat([decipher.update(body), decipher.final()]);
  } catch {
    throw new DecryptionError('authentication failed: wrong passphrase, or the file was altered');
  }
}

/** Header fields every sealed file starts with: magic, passphrase salt and iterations, file salt. */
export const headerBytes = 8 + kdfSaltBytes + 4 + fileSaltBytes;

export interface SealedHeader {
  kdf: KdfParams;
  fileSalt: Buffer;
}

export function encodeHeader(magic: string, header: SealedHeader): Buffer {
  const bytes = Buffer.alloc(headerBytes);
  bytes.write(magic, 0, 8, 'latin1');
  header.kdf.salt.copy(bytes, 8);
  bytes.writeUInt32BE(header.kdf.iterations, 8 + kdfSaltBytes);
  header.fileSalt.copy(bytes, 8 + kdfSaltBytes + 4);
  return bytes;
}

export function decodeHeader(magic: string, bytes: Buffer, what: string): SealedHeader {
  if (bytes.length < headerBytes || bytes.toString('latin1', 0, 8) !== magic) throw new DecryptionError(`${what} does not start with a ${magic} header`);
  const iterations = bytes.readUInt32BE(8 + kdfSaltBytes);
  if (iterations < 1 || iterations > maxPbkdf2Iterations) throw new DecryptionError(`${what} names ${iterations} PBKDF2 iterations`);
  return {
    kdf: { salt: Buffer.from(bytes.subarray(8, 8 + kdfSaltBytes)), iterations },
    fileSalt: Buffer.from(bytes.subarray(8 + kdfSaltBytes + 4, headerBytes)),
  };
}
