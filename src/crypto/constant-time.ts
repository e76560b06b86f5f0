// The one comparison of secrets (tokens, keys, session ids) in the project. Both sides are hashed
// first, so the comparison always runs over 32 bytes: neither a secret's content nor its length
// shows in how long the comparison takes.
import { hash, timingSafeEqual } from 'node:crypto';

/**
 * A secret's digest, for `matchesDigest`: a secret checked on every request (a domain's token) is
 * hashed once, not at each check. The one-shot hash, not createHash: no Hash object per call.
 */
export function secretDigest(secret: string): Buffer {
  return hash('sha256', secret, 'buffer');
}

/** True when `presented` is the secret `digest` was made of, in a time that depends on neither. */
export function matchesDigest(presented: string, digest: Buffer): boolean {
  return timingSafeEqual(secretDigest(presented), digest);
}

/** True when `a` and `b` are the same text, in a time that depends on neither. */
export function safeEqual(a: string, b: string): boolean {
  return matchesDigest(a, secretDigest(b));
}
