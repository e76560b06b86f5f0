// The `certhub` executable: setup (the wizard), run (the cert role alone), check, renew, rekey and revoke
// (sent to a running certhub) and account rollover. Each command loads
// what it runs when it runs: --version, --help and a usage error load commander alone.
import { Option, type Command } from 'commander';
import type { CerthubRunOptions } from './run.js';
import { createProgram, withLogOptions } from '../../../src/cli/program.js';
import { isBetaBuild } from '../../../src/version.js';
import { revocationReasonNames } from '../acme/revocation-reasons.js';
import type { LifecycleAction } from './lifecycle.js';

export function certhubProgram(): Command {
  const program = createProgram('certhub', 'Certificate distribution server: DNS records, ACME DNS-01 certificates and per-domain tokens.');

  program
    .command('setup')
    .description('interactive wizard: write config.json (mode 0600, with a new admin key) in the data directory (mode 0700)')
    .requiredOption('-d, --data-dir <dir>', 'data directory (created if missing)')
    .option('--force', 'replace an existing config.json')
    // The Cloudflare API base of a test double (config.json's api_url); hidden: nobody else has one.
    .addOption(new Option('--cloudflare-api-url <url>').hideHelp())
    .action(async (options: { dataDir: string; force?: boolean; cloudflareApiUrl?: string }) => {
      const { runCerthubSetup } = await import('./setup.js');
      await runCerthubSetup({
        dataDir: options.dataDir,
        force: options.force === true,
        ...(options.cloudflareApiUrl === undefined ? {} : { cloudflareApiUrl: options.cloudflareApiUrl }),
      });
    });

  withLogOptions(
    program
      .command('run')
      .description('run the certificate server; prints its URL and the admin key')
      .requiredOption('-d, --data-dir <dir>', 'data directory holding config.json')
      .option('-p, --port <port>', 'port to listen on (default: config.json port, 8443)')
      .option('-H, --host <address>', 'address to bind to (default: config.json bind, 0.0.0.0)')
      // Beta builds only: a release parses the flag to refuse it with a clear message, and hides it.
      .addOption(isBetaBuild ? new Option('--demo', 'self-signed demo certificates; no DNS provider or CA is contacted') : new Option('--demo').hideHelp()),
  ).action(async (options: CerthubRunOptions) => {
    const { runCerthub } = await import('./run.js');
    await runCerthub(options);
  });
  program
    .command('check')
    .description(
      'check config.json, then each CA (its directory, terms of service and account, registered with eab where needed) and each DNS provider (a TXT record written and removed): one line per check, exit 0 when all pass, 1 otherwise',
    )
    .option('-d, --data-dir <dir>', 'data directory holding config.json and acme/', '.')
    .action(async (options: { dataDir: string }) => {
      const { runCerthubCheck } = await import('./check.js');
      await runCerthubCheck({ dataDir: options.dataDir });
    });
  const lifecycle = (name: string, description: string) =>
    program
      .command(name)
      .description(description)
      .argument('<domain>', 'the domain: its full name, or its label under base_domain')
      .option('-d, --data-dir <dir>', 'data directory holding config.json (the address, port, admin key and certificate)', '.')
      .option('--url <url>', "certhub's address, when it is not config.json's bind and port (certhub run -H or -p)");
  const act = async (domain: string, options: { dataDir: string; url?: string }, what: LifecycleAction) => {
    const { runLifecycleAction } = await import('./lifecycle.js');
    await runLifecycleAction({ dataDir: options.dataDir, domain, ...(options.url === undefined ? {} : { url: options.url }) }, what);
  };
  lifecycle('renew', 'renew the certificate of an issued domain now (the running certhub orders it)').action(
    (domain: string, options: { dataDir: string; url?: string }) => act(domain, options, { action: 'renew' }),
  );
  lifecycle('rekey', 'renew the certificate of an issued domain now with a new key').action((domain: string, options: { dataDir: string; url?: string }) =>
    act(domain, options, { action: 'rekey' }),
  );
  lifecycle('revoke', 'revoke the certificate of an issued domain at its CA, and order a new one with a new key at once')
    .addOption(new Option('--reason <reason>', 'the RFC 5280 reason').choices(revocationReasonNames).makeOptionMandatory())
    .action((domain: string, options: { dataDir: string; url?: string; reason: (typeof revocationReasonNames)[number] }) =>
      act(domain, options, { action: 'revoke', reason: options.reason }),
    );
  program
    .command('audit')
    .description('the audit log (audit.jsonl in the data directory): admin actions and material handed out')
    .command('verify')
    .description("check audit.jsonl's hash chain: exit 0 when it holds (a torn last line is reported as torn), 1 naming the first bad line")
    .option('-d, --data-dir <dir>', 'data directory holding audit.jsonl', '.')
    .action(async (options: { dataDir: string }) => {
      const { runAuditVerify } = await import('../audit/verify-command.js');
      await runAuditVerify(options.dataDir);
    });
  const account = program.command('account').description("the ACME account kept in the data directory's acme/ folder");
  account
    .command('rollover')
    .description('give the ACME account at the first CA a new key (RFC 8555 §7.3.5); the CA refuses the old one from then on. certhub run must be stopped')
    .option('-d, --data-dir <dir>', 'data directory holding config.json and acme/', '.')
    .action(async (options: { dataDir: string }) => {
      const { runAccountRollover } = await import('./account-rollover.js');
      await runAccountRollover({ dataDir: options.dataDir });
    });
  return program;
}
