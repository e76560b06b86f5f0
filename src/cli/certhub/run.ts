// `certhub run -d DIR`: the cert role alone, its settings from config.json in the data directory.
// The admin key is printed on the terminal at start, never written to the log.
import { loadCertConfig } from '../../config/cert-load.js';
import { ConfigError } from '../../errors.js';
import { isLoopbackOnly } from '../../../actors/sampler/ports.js';
import { isBetaBuild, version } from '../../version.js';
import { hostConfigFromFlags } from '../role-flags.js';
import type { LogFlags } from '../program.js';
import { runHost } from '../run-host.js';

export interface CerthubRunOptions extends LogFlags {
  dataDir: string;
  port?: string;
  host?: string;
  demo?: boolean;
}

export async function runCerthub(options: CerthubRunOptions): Promise<never> {
  const demo = options.demo === true;
  if (demo && !isBetaBuild) throw new ConfigError([`--demo is offered only by beta builds; certhub ${version} is a release`]);
  const { config, migration } = await loadCertConfig(options.dataDir, { demo });
  if (migration !== undefined) process.stderr.write(`certhub: migrated the legacy keys ${migration.keys.join(', ')} of config.json; the old file is kept as ${migration.legacyPath}\n`);
  const host = options.host ?? config.bind;
  const hostConfig = hostConfigFromFlags(
    'cert',
    { data_dir: options.dataDir, demo, bind: host, port: options.port === undefined ? config.port : Number(options.port) },
    { bind: '-H, --host', port: '-p, --port', data_dir: '-d, --data-dir' },
  );
  if (config.tls === undefined && host !== 'localhost' && !isLoopbackOnly(host)) {
    process.stderr.write(`certhub: warning: serving plain HTTP on ${host}: tokens, keys and the admin key would cross the network in clear; set tls in config.json or bind to 127.0.0.1 behind a TLS proxy\n`);
  }
  return runHost(hostConfig, {
    ...options,
    onStarted: ({ urls }) => {
      // One write: a reader that sees the address sees the key with it.
      process.stdout.write(`${urls.map((url) => `${url}\n`).join('')}admin key: ${config.admin_key}\n`);
    },
  });
}
