// What certhub-agent tells certhub about one host after each check of a domain: POST
// /api/cert/<domain>/report with the domain's token. The agent builds it with these types (through
// the role's index.ts) and certhub checks it with this schema, so the two read one shape.
import { z } from 'zod';

/** The most bytes a report's body may hold: a few hundred are used, the rest is room for output lines. */
export const maxReportBytes = 4096;
/** The last lines of a reload command's output a report carries, and the most characters of each. */
export const reportedOutputLines = 5;
export const reportedLineLength = 200;

const isoInstant = z.iso.datetime();
/** Text without control characters, which would reach a log or a terminal. */
// eslint-disable-next-line no-control-regex -- refusing control characters is the point
const noControlCharacters = /^[^\u0000-\u001f\u007f]*$/;
/** Printable text of at most `max` characters. */
const printable = (max: number) => z.string().max(max).regex(noControlCharacters, { message: 'must hold no control characters' });

export const hostReportSchema = z.strictObject({
  /** The agent's stable id: random, kept in its output or material folder. */
  host_id: z.string().regex(/^[A-Za-z0-9_-]{16,64}$/, { message: 'must be 16 to 64 letters, digits, - or _' }),
  /** os.hostname(), or the agent's --host-name. */
  host_name: printable(253).min(1),
  /** Which program reports: `certhub-agent fetch` or `certhub-agent proxy`. */
  agent: z.enum(['fetch', 'proxy']),
  agent_version: printable(64).min(1),
  /** The certificate the host now serves (proxy) or wrote (fetch). */
  serving: z.strictObject({
    /** SHA-256 of the certificate's DER, 64 lower-case hex digits. */
    sha256: z.string().regex(/^[0-9a-f]{64}$/, { message: 'must be 64 lower-case hex digits' }),
    not_after: isoInstant,
  }),
  /** How the last reload after new material went; null when the agent runs no reload (no --reload-cmd). */
  reload: z
    .strictObject({
      ok: z.boolean(),
      /** The reload command's exit code; null when it ran no command (the proxy's fronts) or was ended by a signal. */
      exit_code: z.number().int().min(-1).max(255).nullable(),
      /** Its last lines of output. */
      output: z.array(printable(reportedLineLength)).max(reportedOutputLines),
    })
    .nullable(),
  /** When the agent checks again; null when it does not know (a single fetch run by cron or a timer). */
  next_check_at: isoInstant.nullable(),
  /** The TCP port the host serves the certificate on (certhub-agent proxy's listening port), for certhub's probes; absent or null when unknown. */
  port: z.number().int().min(1).max(65_535).nullable().optional(),
  /** The certhub server the agent fetched the material from (one of several nodes, each serving fetches), its URL as the agent was given it; absent when not said. */
  server: printable(2048).min(1).optional(),
});

export type HostReport = z.output<typeof hostReportSchema>;
