// The tokens certhub rotated away or removed with their domain, and the host tokens the admin
// revoked (../hosts/host-tokens.ts), remembered as SHA-256 digests (never the token) in the document `retired-tokens.json`, so that an agent still fetching with one is told its
// token was retired rather than counted as a guess (site/public-routes.ts). Kept for a bounded time
// and count: an agent forgotten for longer gets the plain 401 of any wrong token. A missing file is an
// empty list, and a damaged one too (logged): nothing depends on it but the wording of a refusal.
import { z } from 'zod';
import { matchesDigest, secretDigest } from '../../../src/crypto/constant-time.js';
import type { Documents } from '../store/documents.js';
import type { RetiredToken } from './protocol.js';

export const retiredTokensFileName = 'retired-tokens.json';
/** How long a retired token is recognised. */
export const retiredTokenKeepMs = 90 * 86_400_000;
/** The most retired tokens kept of one domain (its latest rotations), and of all domains. */
export const retiredPerDomain = 8;
export const retiredInAll = 20_000;

const retiredTokenSchema: z.ZodType<RetiredToken> = z.object({
  /** The domain's full name. */
  name: z.string().min(1),
  /** Hex SHA-256 of the token (secretDigest). */
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  reason: z.enum(['rotated', 'removed', 'revoked']),
  retired_at: z.iso.datetime(),
  host: z.string().optional(),
});
const retiredFileSchema = z.object({ tokens: z.array(retiredTokenSchema) });

export type { RetiredToken };

/** The digest a retired token is kept as. */
export function retiredDigest(token: string): string {
  return secretDigest(token).toString('hex');
}

/**
 * `tokens` with `token` of `name` added as retired at `now`: older than retiredTokenKeepMs dropped,
 * then the oldest past the per-domain and overall counts.
 */
export function withRetired(tokens: readonly RetiredToken[], name: string, token: string, reason: RetiredToken['reason'], now: number): RetiredToken[] {
  return withRetiredDigest(tokens, { name, sha256: retiredDigest(token), reason }, now);
}

/** `tokens` with the token of digest `retiring.sha256` added as withRetired adds a token (a host token is kept as its digest only). */
export function withRetiredDigest(tokens: readonly RetiredToken[], retiring: Omit<RetiredToken, 'retired_at'>, now: number): RetiredToken[] {
  const { name } = retiring;
  const added: RetiredToken = { ...retiring, retired_at: new Date(now).toISOString() };
  const fresh = [...tokens.filter((entry) => isFresh(entry, now)), added];
  const ofName = fresh.filter((entry) => entry.name === name);
  const dropped = new Set(ofName.slice(0, Math.max(0, ofName.length - retiredPerDomain)));
  return fresh.filter((entry) => !dropped.has(entry)).slice(-retiredInAll);
}

export function isFresh(entry: RetiredToken, now: number): boolean {
  return now - Date.parse(entry.retired_at) < retiredTokenKeepMs;
}

/** What an empty slot is compared with, so that every lookup makes the same comparisons. */
const noRetiredDigest = secretDigest('');

/**
 * The retired entry `presented` matches among `entries` (one domain's, at most retiredPerDomain), or
 * undefined. Always retiredPerDomain comparisons, each in constant time: the time taken says neither
 * which entry matched nor whether the name has any (which would tell that it is or was a domain).
 */
export function matchRetired(entries: readonly RetiredToken[], presented: string, now: number): RetiredToken | undefined {
  let found: RetiredToken | undefined;
  for (let slot = 0; slot < retiredPerDomain; slot++) {
    const entry = entries[slot];
    const matches = matchesDigest(presented, entry === undefined ? noRetiredDigest : Buffer.from(entry.sha256, 'hex'));
    if (matches && entry !== undefined && isFresh(entry, now)) found = entry;
  }
  return found;
}

/** The 401 message for a retired token: what happened to it and when, and what the agent needs. */
export function retiredTokenMessage(entry: RetiredToken): string {
  const on = entry.retired_at.slice(0, 10);
  switch (entry.reason) {
    case 'rotated':
      return `this token was replaced (rotated) on ${on}; give certhub-agent the domain's new token`;
    case 'removed':
      return `this token's domain ${entry.name} was removed from certhub on ${on}; the token is no longer valid`;
    case 'revoked':
      return `this host token (host ${entry.host ?? '?'}) was revoked on ${on}; ask the certhub admin for a new one`;
    default:
      throw new Error(`unknown retirement ${JSON.stringify(entry.reason satisfies never)}`);
  }
}

export interface ReadRetiredTokens {
  tokens: RetiredToken[];
  /** Why the file was not used (for a log line), when it exists but is damaged. */
  problem?: string;
}

export async function readRetiredTokens(documents: Documents, now: number): Promise<ReadRetiredTokens> {
  const path = documents.where(retiredTokensFileName);
  let text: string | undefined;
  try {
    text = await documents.read(retiredTokensFileName);
    if (text === undefined) return { tokens: [] };
  } catch (error) {
    return { tokens: [], problem: `${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)}); retired tokens get the plain 401` };
  }
  const parsed = retiredFileSchema.safeParse(safeJson(text));
  if (!parsed.success) return { tokens: [], problem: `${path} is not a list of retired tokens; retired tokens get the plain 401` };
  return { tokens: parsed.data.tokens.filter((entry) => isFresh(entry, now)) };
}

export function writeRetiredTokens(documents: Documents, tokens: readonly RetiredToken[]): Promise<void> {
  return documents.write(retiredTokensFileName, `${JSON.stringify({ tokens })}\n`);
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
