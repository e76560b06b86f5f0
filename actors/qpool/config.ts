// The qpool config file: sections anu, collect, diode (the sending machine) and server (the
// receiving machine). One file may hold all four; `qpool collect` reads the first three, `qpool serve`
// the last. The send and recv roles of a host config take the same sections.
import { isAbsolute } from 'node:path';
import { z } from 'zod';
import { isBetaBuild } from '../../src/version.js';
import { checkReceiveCommand, checkSendCommand } from './diode-command.js';
import { allowedHosts, bindAddress, commandLine, port, positiveInteger } from '../../src/config/rules.js';

export const keyedDefaultUrl = 'https://api.quantumnumbers.anu.edu.au';
export const legacyDefaultUrl = 'https://qrng.anu.edu.au/API/jsonI.php';

const httpUrl = z.url({ protocol: /^https?$/ });

const keyedSchema = z
  .strictObject({
    enabled: z.boolean().default(false).describe('Collect from this source.'),
    api_key: z.string().min(1).optional().describe('A free account key from quantumnumbers.anu.edu.au; required when enabled.'),
    length: z.number().int().min(1).max(1024).default(1024).describe('Blocks asked for in one request.'),
    size: z.number().int().min(1).max(10).default(10).describe('The size of each block, in 16-bit words (hex16 blocks).'),
    interval_seconds: positiveInteger.default(28_800).describe('Time between two requests; about 100 requests a month are allowed on a free key: three a day.'),
    url: httpUrl.default(keyedDefaultUrl).describe("The API's address; only a test double changes it."),
  })
  .describe("ANU's keyed API (api.quantumnumbers.anu.edu.au).")
  .superRefine((keyed, context) => {
    if (keyed.enabled && keyed.api_key === undefined) {
      context.addIssue({
        code: 'custom',
        path: ['api_key'],
        message: 'is required when anu.keyed.enabled is true (a free key from https://quantumnumbers.anu.edu.au)',
      });
    }
  });

const legacySchema = z
  .strictObject({
    enabled: z.boolean().default(false).describe('Collect from this source.'),
    length: z.number().int().min(1).max(1024).default(1024).describe('Blocks asked for in one request.'),
    size: z.number().int().min(1).max(1024).default(64).describe('The size of each block, in bytes.'),
    interval_seconds: z
      .number()
      .int()
      .min(60)
      .default(3600)
      .describe('Time between two requests; the provider allows one a minute, and a full request takes about two minutes.'),
    url: httpUrl.default(legacyDefaultUrl).describe("The API's address; only a test double changes it."),
  })
  .describe("ANU's free legacy API (qrng.anu.edu.au), without a key.");

const demoSchema = z
  .strictObject({
    enabled: z.boolean().default(false).describe('Collect demo values (beta builds only).'),
    values: z.number().int().min(1).max(10_000).default(64).describe('Values made each time.'),
    interval_seconds: positiveInteger.default(30).describe('Time between two batches.'),
  })
  .describe('Values from the OS CSPRNG, for trying qpool without the internet; beta builds only, tagged demo, never called quantum.')
  .superRefine((demo, context) => {
    if (demo.enabled && !isBetaBuild)
      context.addIssue({ code: 'custom', path: ['enabled'], message: 'is only available in beta builds (demo values are not quantum random)' });
  });

const anuSchema = z
  .strictObject({
    timeout_seconds: positiveInteger.default(180).describe('Deadline of one request to ANU.'),
    keyed: keyedSchema.default(keyedSchema.parse({})),
    legacy: legacySchema.default(legacySchema.parse({})),
    demo: demoSchema.default(demoSchema.parse({})),
  })
  .superRefine((anu, context) => {
    if (!anu.keyed.enabled && !anu.legacy.enabled && !anu.demo.enabled) {
      context.addIssue({ code: 'custom', message: 'must enable a source: anu.keyed.enabled or anu.legacy.enabled' });
    }
  })
  .describe('Where the values come from: at least one source enabled. Read by qpool collect.');

const collectSchema = z
  .strictObject({
    retry_limit: positiveInteger.max(100).default(5).describe('Attempts to hand a batch to the diode before it is dropped.'),
    metrics_host: bindAddress.default('127.0.0.1').describe('The address of the plain HTTP listener of /metrics, /healthz and /readyz (with metrics_port).'),
    metrics_port: port.optional().describe('The port of that listener; none when absent (the send role has no HTTP of its own).'),
  })
  .describe('How the collector runs. Read by qpool collect.');

const diodeSchema = z
  .strictObject({
    send_command: commandLine
      .superRefine(checkSendCommand)
      .optional()
      .describe(
        'The diode tool and its arguments, run directly (no shell, no placeholders); each batch is written to its standard input. Required unless loopback.',
      ),
    timeout_seconds: positiveInteger.default(600).describe('Deadline of one run of send_command.'),
    loopback: z.boolean().default(false).describe('Hand batches to a recv role in the same process instead of running a command (outpost demo).'),
  })
  .describe('How batches cross the one-way diode. Read by qpool collect.')
  .superRefine((diode, context) => {
    if (diode.send_command === undefined && !diode.loopback)
      context.addIssue({
        code: 'custom',
        path: ['send_command'],
        message: 'is required: the diode tool and its arguments, e.g. ["diode", "stream-send", "--channel", "qpool", "--no-colour"]',
      });
  });

/** `host:port`, `[v6]:port` or `:port`; port 0 picks a free one. */
const listenAddress = z.string().transform((value, context) => {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(value);
  const port = match === null ? NaN : Number(match[3]);
  if (match === null || port > 65535) {
    context.addIssue({ code: 'custom', message: 'must be host:port, e.g. 127.0.0.1:8099 or [::1]:8099' });
    return z.NEVER;
  }
  const host = match[1] ?? match[2] ?? '';
  return { host: host === '' ? '0.0.0.0' : host, port };
});

const serverSchema = z
  .strictObject({
    listen: listenAddress
      .prefault('127.0.0.1:8099')
      .describe('Where the HTTP server listens: host:port, [v6]:port or :port (every address); port 0 picks a free one.'),
    max_entries: positiveInteger.max(10_000_000).default(100_000).describe('Values the pool holds; at capacity the oldest is dropped for a new one.'),
    served_history: z
      .number()
      .int()
      .min(0)
      .max(10_000_000)
      .default(10_000)
      .describe('Served values remembered (by key), so that one received again is refused as a duplicate, never served twice.'),
    receive_command: commandLine
      .superRefine(checkReceiveCommand)
      .optional()
      .describe('The diode tool and its arguments, run directly (no shell); it writes batches to its standard output. Required unless loopback.'),
    pool_file: z
      .string()
      .refine((path) => isAbsolute(path), { message: 'must be an absolute path' })
      .optional()
      .describe('Where the pool is kept across restarts (absolute path; a snapshot and a journal beside it); in memory only when absent.'),
    hot_entries: positiveInteger.default(256).describe('Accepted so that configs written for the original tool still load; it changes nothing.'),
    journal_limit_kib: positiveInteger
      .min(16)
      .max(1_048_576)
      .default(8192)
      .describe('With pool_file: the journal is compacted into a new snapshot, in the background, past this size.'),
    threads: positiveInteger.max(16).default(1).describe('Front threads answering HTTP; the pool itself is one thread.'),
    loopback: z.boolean().default(false).describe('Take batches from a send role in the same process instead of running a command (outpost demo).'),
    accept_demo: z.boolean().default(false).describe('Accept values tagged demo (beta builds).'),
    allowed_hosts: allowedHosts.describe(
      'Host names (or IP addresses) the server answers besides loopback ones while it is bound to loopback; other names get 421.',
    ),
  })
  .superRefine((server, context) => {
    if (server.receive_command === undefined && !server.loopback) {
      context.addIssue({
        code: 'custom',
        path: ['receive_command'],
        message: 'is required: the diode tool and its arguments, e.g. ["diode", "stream-recv", "--channel", "qpool", "--no-colour"]',
      });
    }
    if (server.accept_demo && !isBetaBuild) context.addIssue({ code: 'custom', path: ['accept_demo'], message: 'is only available in beta builds' });
  })
  .describe('The receiving machine: the diode tool, the pool and the HTTP server. Read by qpool serve and qpool stats.');

/** The send role: `qpool collect`. */
export const sendSchema = z.strictObject({
  anu: anuSchema,
  collect: collectSchema.default(collectSchema.parse({})),
  diode: diodeSchema,
});

/** The recv role: `qpool serve`. */
export const recvSchema = z.strictObject({
  server: serverSchema,
});

/** A qpool config file as `qpool collect` reads it: the server section may be there, for the other machine. */
export const collectFileSchema = sendSchema.extend({ server: z.unknown().optional() });
/** A qpool config file as `qpool serve` and `qpool stats` read it. */
export const serveFileSchema = recvSchema.extend({ anu: z.unknown().optional(), collect: z.unknown().optional(), diode: z.unknown().optional() });

export type SendConfig = z.output<typeof sendSchema>;
export type RecvConfig = z.output<typeof recvSchema>;
export type AnuConfig = SendConfig['anu'];
export type ServerConfig = RecvConfig['server'];
