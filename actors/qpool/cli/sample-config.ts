// `qpool sample-config`: a config with every option of all four sections, valid as printed for both
// `qpool collect` and `qpool serve`. Built from a typed object, so a new or renamed option fails the
// compile until the sample shows it.
import type { z } from 'zod';
import { keyedDefaultUrl, legacyDefaultUrl, type recvSchema, type sendSchema } from '../config.js';

/** The diode tool's program name as the examples use it. */
export const diodeProgram = 'diode';
/** The channel the examples use. */
export const diodeChannel = 'qpool';

/** A diode command of the shape the spec gives: program, subcommand, --channel, channel, --no-colour. */
export function diodeCommand(program: string, subcommand: 'stream-send' | 'stream-recv' | 'auto-stream-recv', channel: string): string[] {
  return [program, subcommand, '--channel', channel, '--no-colour'];
}

/** Every option present (none left to its default), recursively; arrays and scalars as they are. */
type Every<T> = { [K in keyof T]-?: Complete<Exclude<T[K], undefined>> };
type Complete<V> = V extends readonly unknown[] ? V : V extends object ? Every<V> : V;

type EveryOption = Every<z.input<typeof sendSchema> & z.input<typeof recvSchema>>;
/**
 * Options accepted only so that configs written for the original tool still load: they change
 * nothing, so the sample does not offer them.
 */
type ObsoleteServerOption = 'hot_entries';
/** A listener the sample does not open: the send role's metrics are off unless a port is given. */
type OffUnlessSetCollectOption = 'metrics_port';
type SampleConfig = Omit<EveryOption, 'server' | 'collect'> & {
  server: Omit<EveryOption['server'], ObsoleteServerOption>;
  collect: Omit<EveryOption['collect'], OffUnlessSetCollectOption>;
};

export function sampleConfig(): SampleConfig {
  return {
    anu: {
      timeout_seconds: 180,
      keyed: {
        enabled: false,
        api_key: 'REPLACE-ME: your free API key from https://quantumnumbers.anu.edu.au (then set enabled to true)',
        length: 1024,
        size: 10,
        interval_seconds: 28_800,
        url: keyedDefaultUrl,
      },
      legacy: {
        enabled: true,
        length: 1024,
        size: 64,
        interval_seconds: 3600,
        url: legacyDefaultUrl,
      },
      demo: {
        enabled: false,
        values: 64,
        interval_seconds: 30,
      },
    },
    collect: {
      retry_limit: 5,
      metrics_host: '127.0.0.1',
    },
    diode: {
      send_command: diodeCommand(diodeProgram, 'stream-send', diodeChannel),
      timeout_seconds: 600,
      loopback: false,
    },
    server: {
      listen: '127.0.0.1:8099',
      max_entries: 100_000,
      served_history: 10_000,
      receive_command: diodeCommand(diodeProgram, 'stream-recv', diodeChannel),
      pool_file: '/var/lib/qpool/pool.bin',
      journal_limit_kib: 8192,
      threads: 1,
      loopback: false,
      accept_demo: false,
      allowed_hosts: [],
    },
  };
}

export function sampleConfigText(): string {
  return `${JSON.stringify(sampleConfig(), null, 2)}\n`;
}
