// The shape of the admin panel's remembered choices (prefs.json), shared by the page and the server.
import { z } from 'zod';

export const exportFormats = ['fetch-json', 'fetch-cli', 'proxy-json', 'csv'] as const;

const sortSchema = z.strictObject({
  key: z.enum(['name', 'expires']).default('name'),
  direction: z.enum(['asc', 'desc']).default('asc'),
});

export const prefsSchema = z.strictObject({
  export_format: z.enum(exportFormats).default('fetch-json'),
  /** null: the page's own origin. */
  export_server_url: z
    .url({ protocol: /^https?$/ })
    .max(2048)
    .nullable()
    .default(null),
  sort: sortSchema.prefault({}),
  /** Case-insensitive substring of the domain name. */
  filter: z.string().max(253).default(''),
});

export type Prefs = z.output<typeof prefsSchema>;
