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
    enabled: z.boolean().default(false),
    /** A free account key from quantumnumbers.anu.edu.au. */
    api_key: z.string().min(1).optional(),
    length: z.number().int().min(1).max(1024).default(1024),
    size: z.number().int().min(1).max(10).default(10),
    /** About 100 requests a month are allowed on a free key: three a day. */
    interval_seconds: positiveInteger.default(28_800),
    url: httpUrl.default(keyedDefaultUrl),
  })
  .superRefine((keyed, context) => {
    if (keyed.enabled && keyed.api_key === undefined) {
      context.addIssue({ code: 'custom', path: ['api_key'], message: 'is required when anu.keyed.enabled is true (a free key from https://quantumnumbers.anu.edu.au)' });
    }
  });

const legacySchema = z.strictObject({
  enabled: z.boolean().default(false),
  length: z.number().int().min(1).max(1024).default(1024),
  size: z.number().int().min(1).max(1024).default(64),
  /** The provider allows one request a minute, and a full request takes about two minutes. */
  interval_seconds: z.number().int().min(60).default(3600),
  url: httpUrl.default(legacyDefaultUrl),
});

/** Values from the OS CSPRNG, for trying qpool without the internet; beta builds only, never called quantum. */
const demoSchema = z
  .strictObject({
    enabled: z.boolean().default(false),
    values: z.number().int().min(1).max(10_000).default(64),
    interval_seconds: positiveInteger.default(30),
  })
  .superRefine((demo, context) => {
    if (demo.enabled && !isBetaBuild) context.addIssue({ code: 'custom', path: ['enabled'], message: 'is only available in beta builds (demo values are not quantum random)' });
  });

const anuSchema = z
  .strictObject({
    timeout_seconds: positiveInteger.default(180),
    keyed: keyedSchema.default(keyedSchema.parse({})),
    legacy: legacySchema.default(legacySchema.parse({})),
    demo: demoSchema.default(demoSchema.parse({})),
  })
  .superRefine((anu, context) => {
    if (!anu.keyed.enabled && !anu.legacy.enabled && !anu.demo.enabled) {
      context.addIssue({ code: 'custom', message: 'must enable a source: anu.keyed.enabled or anu.legacy.enabled' });
    }
  });

const collectSchema = z.strictObject({
  retry_limit: positiveInteger.max(100).default(5),
  /**
   * The send role has no HTTP of its own: its /metrics, /healthz and /readyz are on a plain HTTP
   * listener only when metrics_port is set, on loopback unless metrics_host says otherwise.
   */
  metrics_host: bindAddress.default('127.0.0.1'),
  metrics_port: port.optional(),
});

const diodeSchema = z
  .strictObject({
    /** Run directly (no shell, no placeholders); the batch is written to its standard input. */
    send_command: commandLine.superRefine(checkSendCommand).optional(),
    timeout_seconds: positiveInteger.default(600),
    /** Hands batches to a recv role in the same process instead of running a command (outpost demo). */
    loopback: z.boolean().default(false),
  })
  .superRefine((diode, context) => {
    if (diode.send_command === undefined && !diode.loopback) context.addIssue({ code: 'custom', path: ['send_command'], message: 'is required: the diode tool and its arguments, e.g. ["diode", "stream-send", "--channel", "qpool", "--no-colour"]' });
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
    listen: listenAddress.default({ host: '127.0.0.1', port: 8099 }),
    max_entries: positiveInteger.max(10_000_000).default(100_000),
    served_history: z.number().int().min(0).max(10_000_000).default(10_000),
    receive_command: commandLine.superRefine(checkReceiveCommand).optional(),
    pool_file: z
      .string()
      .refine((path) => isAbsolute(path), { message: 'must be an absolute path' })
      .optional(),
    hot_entries: positiveInteger.default(256),
    /** With pool_file: the journal is compacted into a new snapshot, in the background, past this size. */
    journal_limit_kib: positiveInteger.min(16).max(1_048_576).default(8192),
    /** Front threads answering HTTP; the pool itself is one thread. */
    threads: positiveInteger.max(16).default(1),
    /** Takes batches from a send role in the same process instead of running a command (outpost demo). */
    loopback: z.boolean().default(false),
    /** Accept values tagged `demo` (beta builds). */
    accept_demo: z.boolean().default(false),
    /** Host names the server answers besides loopback ones (docs/qpool.md). */
    allowed_hosts: allowedHosts,
  })
  .superRefine((server, context) => {
    if (server.receive_command === undefined && !server.loopback) {
      context.addIssue({ code: 'custom', path: ['receive_command'], message: 'is required: the diode tool and its arguments, e.g. ["diode", "stream-recv", "--channel", "qpool", "--no-colour"]' });
    }
    if (server.accept_demo && !isBetaBuild) context.addIssue({ code: 'custom', path: ['accept_demo'], message: 'is only available in beta builds' });
  });

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
