// Secrets at rest in the shared store (private keys, tokens, the ACME account key): AES-256-GCM under
// the store key, a 32-byte key every node reads from a 0600 file or the environment, so that a dump
// of the database holds no usable key or token. A sealed value names the key it was sealed with (the
// first 8 bytes of the key's SHA-256, in hex), so that after a rotation the old keys still open what
// they sealed until it is sealed again. Each value has a random 96-bit nonce (NIST SP 800-38D allows
// 2^32 of them under one key) and is bound to where it is kept (the associated data: table, row and
// column), so a value copied to another row or column does not open.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { OutpostError } from '../../../src/errors.js';

const version = 'v1';
const nonceBytes = 12;
const tagBytes = 16;
export const storeKeyBytes = 32;

export interface StoreKey {
  /** Hex of the first 8 bytes of the key's SHA-256: names the key without revealing it. */
  id: string;
  key: Buffer;
}

export function storeKey(key: Buffer): StoreKey {
  if (key.length !== storeKeyBytes) throw new OutpostError('ERR_BAD_REQUEST', `a store key is ${storeKeyBytes} bytes, not ${key.length}`);
  return { id: createHash('sha256').update(key).digest('hex').slice(0, 16), key };
}

/**
 * The store key written as text: 32 bytes in base64 (what `openssl rand -base64 32` prints) or in hex
 * (64 digits), surrounding white space ignored.
 */
export function parseStoreKey(text: string): StoreKey {
  const trimmed = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return storeKey(Buffer.from(trimmed, 'hex'));
  if (/^[A-Za-z0-9+/]{43}=?$/.test(trimmed)) return storeKey(Buffer.from(trimmed, 'base64'));
  throw new OutpostError('ERR_BAD_REQUEST', `a store key is ${storeKeyBytes} random bytes in base64 (openssl rand -base64 32) or 64 hex digits`);
}

/** Seals and opens the store's secrets: the current key seals, any of `keys` opens. */
export class SecretBox {
  private readonly byId: Map<string, Buffer>;

  constructor(
    private readonly current: StoreKey,
    previous: readonly StoreKey[] = [],
  ) {
    this.byId = new Map([current, ...previous].map((entry) => [entry.id, entry.key]));
  }

  /** `v1.<key id>.<base64url of nonce, ciphertext and tag>`, bound to `place` (e.g. `domains/app.example.com/key`). */
  seal(plaintext: string, place: string): string {
    const nonce = randomBytes(nonceBytes);
    const cipher = createCipheriv('aes-256-gcm', this.current.key, nonce);
    cipher.setAAD(Buffer.from(place, 'utf8'));
    const sealed = Buffer.concat([nonce, cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `${version}.${this.current.id}.${sealed.toString('base64url')}`;
  }

  /** The plaintext of a value `seal` made for `place`; a wrong key, place or any altered byte throws. */
  open(sealed: string, place: string): string {
    const [tag, keyId, body, ...rest] = sealed.split('.');
    if (tag !== version || keyId === undefined || body === undefined || rest.length > 0) throw sealedError(place, 'is not a sealed value');
    const key = this.byId.get(keyId);
    if (key === undefined) throw sealedError(place, `was sealed with store key ${keyId}, which this node does not have`);
    const bytes = Buffer.from(body, 'base64url');
    if (bytes.length < nonceBytes + tagBytes) throw sealedError(place, 'is shorter than its nonce and tag');
    const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, nonceBytes));
    decipher.setAAD(Buffer.from(place, 'utf8'));
    decipher.setAuthTag(bytes.subarray(bytes.length - tagBytes));
    try {
      return Buffer.concat([decipher.update(bytes.subarray(nonceBytes, bytes.length - tagBytes)), decipher.final()]).toString('utf8');
    } catch {
      throw sealedError(place, 'does not open: altered, or moved from another place');
    }
  }

  /** Whether `sealed` is sealed with the current key (a rotation seals again what is not). */
  isCurrent(sealed: string): boolean {
    return sealed.startsWith(`${version}.${this.current.id}.`);
  }
}

function sealedError(place: string, problem: string): OutpostError {
  return new OutpostError('ERR_INTERNAL', `the stored secret ${place} ${problem}`);
}
