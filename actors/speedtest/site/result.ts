// A saved result as POST /api/results takes it and GET /api/results/<id> answers it. The server
// grades it itself (grades.ts) and keeps the client's address only when told to.
import { z } from 'zod';
import type { UseGrades } from './grades.js';

const milliseconds = z.number().finite().min(0).max(600_000);
const bitsPerSecond = z.number().finite().min(0).max(1e13);

/** The body of POST /api/results. */
export const resultInputSchema = z.strictObject({
  /** Who measured: the browser page or the terminal client. */
  source: z.enum(['page', 'client']),
  download_bps: bitsPerSecond,
  upload_bps: bitsPerSecond,
  ping_ms: milliseconds,
  jitter_ms: milliseconds,
  loss_percent: z.number().finite().min(0).max(100),
  download_loaded_latency_ms: milliseconds.nullable(),
  upload_loaded_latency_ms: milliseconds.nullable(),
});

export type ResultInput = z.output<typeof resultInputSchema>;

/** The most a POST /api/results body may be; a result is a few hundred bytes. */
export const resultBodyLimit = 4096;

export interface SavedResult extends ResultInput {
  /** 128 random bits, base64url (22 characters). */
  id: string;
  /** When it was saved, ISO 8601 UTC. */
  at: string;
  /** The server's name when it was saved. */
  server_name: string;
  grades: UseGrades;
  /** The address it was sent from, only with `results_keep_address`. */
  address?: string;
}

/** What an id looks like: 22 base64url characters. */
export const resultIdPattern = /^[A-Za-z0-9_-]{22}$/;

/** The answer of POST /api/results. */
export interface SavedAnswer {
  id: string;
  /** The result's page, relative to the server's root: `r/<id>`. */
  page: string;
  /** Its picture: `r/<id>.svg`. */
  picture: string;
}
