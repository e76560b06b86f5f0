#!/usr/bin/env node
import { runCerthubSetup } from '../src/cli/certhub/setup.js';
import { plannedCommand } from '../src/cli/planned.js';
import { createProgram, runProgram } from '../src/cli/program.js';

const program = createProgram('certhub', 'Certificate distribution server: DNS records, ACME DNS-01 certificates and per-domain tokens.');

program
  .command('setup')
  .description('interactive wizard: write config.json (mode 0600, with a new admin key) in the data directory (mode 0700)')
  .requiredOption('-d, --data-dir <dir>', 'data directory (created if missing)')
  .option('--force', 'replace an existing config.json')
  .action(async (options: { dataDir: string; force?: boolean }) => {
    await runCerthubSetup({ dataDir: options.dataDir, force: options.force === true });
  });

plannedCommand(program, 'run', 'run the certificate server', 'cert');
runProgram(program);
