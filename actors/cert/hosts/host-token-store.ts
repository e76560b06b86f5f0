// The host tokens of each domain: the document `host-tokens/<name>.json` of the store, replaced whole
// at each change (../store/domain-lists.ts). It holds each token's SHA-256, never the token: a copy of
// the data folder lets no one fetch with it.
import { z } from 'zod';
import type { Documents } from '../store/documents.js';
import { DomainLists } from '../store/domain-lists.js';
import { hostTokenIdPattern, type HostTokenRecord } from './host-tokens.js';

const isoInstant = z.iso.datetime();
const recordSchema = z.object({
  id: z.string().regex(hostTokenIdPattern),
  host: z.string().min(1),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  created_at: isoInstant,
  last_used_at: isoInstant.nullable(),
}) satisfies z.ZodType<HostTokenRecord>;
export interface LoadedHostTokens {
  /** Domain name -> its host tokens by id. */
  tokens: Map<string, Map<string, HostTokenRecord>>;
  /** Documents that could not be read (skipped, left in place), one line each for the log. */
  problems: string[];
}

export type HostTokenStore = DomainLists<HostTokenRecord>;

/** The host-tokens folder of `documents` (the store's top) and every domain's host tokens in it. */
export async function openHostTokenStore(documents: Documents): Promise<{ store: HostTokenStore; loaded: LoadedHostTokens }> {
  const { store, loaded } = await DomainLists.open(documents.within('host-tokens'), {
    field: 'tokens',
    entry: recordSchema,
    id: (token) => token.id,
    what: 'list of host tokens',
  });
  return { store, loaded: { tokens: loaded.lists, problems: loaded.problems } };
}
