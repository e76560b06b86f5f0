// The `qpool` executable: collect (the send role), serve (the recv role), stats, setup, sample-config.
// Each command loads what it runs when it runs: --version, --help and a usage error load commander
// and src/cli/program.ts alone (`qpool --version`: 130 ms of CPU, 320 when every command's code loaded).
import type { Command } from 'commander';
import { createProgram, withLogOptions, type LogFlags } from '../../../src/cli/program.js';
import type { SetupSide } from './setup.js';

export function qpoolProgram(): Command {
  const program = createProgram('qpool', 'Quantum random pool: collect values from ANU, push them over a one-way diode, serve each once.');

  withLogOptions(program.command('collect').description('poll ANU on the sending machine and push the values across the diode'))
    .requiredOption('-c, --config <file>', 'qpool config file (JSON; sections anu, collect, diode)')
    .action(async (options: LogFlags & { config: string }) => {
      const [{ collectFileSchema }, { loadConfigFile }] = await Promise.all([import('../config.js'), import('../../../src/config/load.js')]);
      const { anu, collect, diode } = await loadConfigFile(collectFileSchema, options.config);
      // Only a config that loaded needs the supervisor: a mistake exits 2 before it is loaded.
      const [{ singleRoleHost }, { runHost }, { sendRole }] = await Promise.all([
        import('../../../src/config/host.js'),
        import('../../../src/cli/run-host.js'),
        import('../send.js'),
      ]);
      await runHost(singleRoleHost('send', { anu, collect, diode }), { ...options, known: [sendRole], file: options.config, optionPaths: 'role' });
    });

  withLogOptions(program.command('serve').description('receive values from the diode, keep the pool and serve each value once over HTTP'))
    .requiredOption('-c, --config <file>', 'qpool config file (JSON; section server)')
    .action(async (options: LogFlags & { config: string }) => {
      const [{ serveFileSchema }, { loadConfigFile }] = await Promise.all([import('../config.js'), import('../../../src/config/load.js')]);
      const { server } = await loadConfigFile(serveFileSchema, options.config);
      const [{ singleRoleHost }, { printUrls, runHost }, { recvRole }] = await Promise.all([
        import('../../../src/config/host.js'),
        import('../../../src/cli/run-host.js'),
        import('../recv.js'),
      ]);
      await runHost(singleRoleHost('recv', { server }), { ...options, known: [recvRole], file: options.config, optionPaths: 'role', onStarted: printUrls });
    });

  program
    .command('stats')
    .description('print pool depth, age range and served totals of the running server')
    .requiredOption('-c, --config <file>', 'the config qpool serve runs with (server.listen is read)')
    .option('--json', "print the server's /api/status answer as JSON, for scripts")
    .action(async (options: { config: string; json?: boolean }) => {
      const [{ serveFileSchema }, { loadConfigFile }, { fetchStatus, formatStatus, statusUrl }] = await Promise.all([
        import('../config.js'),
        import('../../../src/config/load.js'),
        import('./stats.js'),
      ]);
      const { server } = await loadConfigFile(serveFileSchema, options.config);
      const status = await fetchStatus(statusUrl(server.listen));
      process.stdout.write(options.json === true ? `${JSON.stringify(status, null, 2)}\n` : formatStatus(status));
    });

  program
    .command('setup')
    .description('interactive wizard: write a working config for the sending (send) or receiving (recv) machine')
    .argument('<side>', 'send or recv')
    .option('-o, --output <file>', 'where to write the config', 'qpool.json')
    .option('--force', 'overwrite an existing file')
    .action(async (side: string, options: { output: string; force?: boolean }) => {
      if (side !== 'send' && side !== 'recv') program.error(`qpool setup: <side> must be send or recv, not ${JSON.stringify(side)}`);
      const { runSetupWizard } = await import('./setup.js');
      await runSetupWizard(side as SetupSide, { output: options.output, force: options.force === true });
    });

  program
    .command('sample-config')
    .description('print a full example config with every option (valid as printed)')
    .action(async () => {
      const { sampleConfigText } = await import('./sample-config.js');
      process.stdout.write(sampleConfigText());
    });

  return program;
}
