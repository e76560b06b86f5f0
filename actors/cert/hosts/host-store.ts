// The hosts of each domain: the document `hosts/<name>.json` of the store, replaced whole at each
// report (../store/domain-lists.ts).
import { z } from 'zod';
import type { Documents } from '../store/documents.js';
import { DomainLists } from '../store/domain-lists.js';
import type { HostRecord } from './deployment.js';

const isoInstant = z.iso.datetime();
const hostRecordSchema = z.object({
  id: z.string().min(1),
  name: z.string(),
  address: z.string(),
  agent: z.enum(['fetch', 'proxy']),
  agent_version: z.string(),
  sha256: z.string(),
  not_after: isoInstant,
  served_since: isoInstant,
  reload: z.object({ ok: z.boolean(), exit_code: z.number().int().nullable(), output: z.array(z.string()) }).nullable(),
  last_report_at: isoInstant,
  next_check_at: isoInstant.nullable(),
  port: z.number().int().min(1).max(65_535).nullable().default(null),
  server: z.string().nullable().default(null),
  probe: z
    .object({ at: isoInstant, address: z.string(), sha256: z.string().nullable(), not_after: isoInstant.nullable(), error: z.string().nullable() })
    .nullable()
    .default(null),
  host_token: z.string().nullable().default(null),
}) satisfies z.ZodType<HostRecord>;

export interface LoadedHosts {
  /** Domain name -> its hosts by id. */
  hosts: Map<string, Map<string, HostRecord>>;
  /** Documents that could not be read (skipped, left in place), one line each for the log. */
  problems: string[];
}

export type HostStore = DomainLists<HostRecord>;

/** The hosts folder of `documents` (the store's top) and every domain's hosts in it. */
export async function openHostStore(documents: Documents): Promise<{ store: HostStore; loaded: LoadedHosts }> {
  const { store, loaded } = await DomainLists.open(documents.within('hosts'), {
    field: 'hosts',
    entry: hostRecordSchema,
    id: (host) => host.id,
    what: 'host list',
  });
  return { store, loaded: { hosts: loaded.lists, problems: loaded.problems } };
}
