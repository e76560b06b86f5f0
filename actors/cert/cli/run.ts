// `certhub run -d DIR`: the cert role alone, its settings from config.json in the data directory
// (with --demo, a demo config.json is written where there is none, so a first try needs no setup).
// The admin key is printed at start, in full only to a terminal (admin-key-notice.ts), never written to
// the log, with the fingerprint of the self-signed certificate served off loopback without `tls`.
import { adminKeyNotice } from '../admin-key-notice.js';
import { certConfigPath, configExists, loadCertConfig } from '../config-load.js';
import { demoBaseDomain, writeDemoConfig } from '../demo-config.js';
import { ConfigError } from '../../../src/errors.js';
import { selfSignedTls } from '../self-signed.js';
import { servingKind } from '../tls.js';
import { certRoleWithConfig } from '../role.js';
import { isBetaBuild, version } from '../../../src/version.js';
import { hostConfigFromFlags } from '../../../src/cli/role-flags.js';
import type { LogFlags } from '../../../src/cli/program.js';
import { runHost } from '../../../src/cli/run-host.js';

export interface CerthubRunOptions extends LogFlags {
  dataDir: string;
  port?: string;
  host?: string;
  demo?: boolean;
}

export async function runCerthub(options: CerthubRunOptions): Promise<never> {
  const demo = options.demo === true;
  if (demo && !isBetaBuild) throw new ConfigError([`--demo is offered only by beta builds; certhub ${version} is a release`]);
  if (demo && !(await configExists(certConfigPath(options.dataDir)))) {
    await writeDemoConfig(options.dataDir);
    process.stderr.write(
      `certhub: ${certConfigPath(options.dataDir)} did not exist: wrote a demo config (base domain ${demoBaseDomain}, a new admin key); certhub setup -d DIR writes a real one\n`,
    );
  }
  const { config, migration } = await loadCertConfig(options.dataDir, { demo });
  if (migration !== undefined)
    process.stderr.write(`certhub: migrated the legacy keys ${migration.keys.join(', ')} of config.json; the old file is kept as ${migration.legacyPath}\n`);
  const host = options.host ?? config.bind;
  const role = certRoleWithConfig(options.dataDir, config);
  const hostConfig = hostConfigFromFlags(
    role,
    { data_dir: options.dataDir, demo, bind: host, port: options.port === undefined ? config.port : Number(options.port) },
    { bind: '-H, --host', port: '-p, --port', data_dir: '-d, --data-dir' },
  );
  const kind = servingKind(config, host);
  // Made (first start) or read here, before the role reads it again: the start line shows its fingerprint.
  const pin = kind === 'self-signed' ? (await selfSignedTls(options.dataDir, config.base_domain)).pin : undefined;
  // TLS from the first byte: a plain http:// request to the port gets an empty reply, which a person
  // reads as "down" unless told.
  const httpsOnly = 'HTTPS only: a plain http:// request to this port gets an empty reply\n';
  const serving =
    pin !== undefined
      ? `certificate: ${pin} (self-signed; agents pin it with --pin)\n${httpsOnly}`
      : kind === 'insecure-http'
        ? `${red(`WARNING: insecure_http: plain HTTP on ${host}: the admin key, the tokens and the private keys cross the network in clear`)}\n`
        : kind === 'tls'
          ? httpsOnly
          : '';
  return runHost(hostConfig, {
    ...options,
    known: [role],
    onStarted: ({ urls }) => {
      // One write: a reader that sees the address sees the key (and what to pin) with it.
      process.stdout.write(
        `${urls.map((url) => `${url}\n`).join('')}admin key: ${adminKeyNotice(config.admin_key, certConfigPath(options.dataDir), process.stdout.isTTY === true)}\n${serving}`,
      );
    },
  });
}

function red(text: string): string {
  return process.stdout.isTTY ? `\x1b[31m${text}\x1b[39m` : text;
}
