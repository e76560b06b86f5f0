// The one comparison of secrets (tokens, keys, session ids) in the project. Both sides are hashed
// first, so the comparison always runs over 32 bytes: neither a secret's content nor its length
// shows in how long the comparison takes.
import { createHash, timingSafeEqual } from 'node:crypto';

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/** True when `a` and `b` are the same text, in a time that depends on neither. */
export function safeEqual(a: string, b: string): boolean {
  return timingSafeEqual(digest(a), digest(b));
}
