#!/usr/bin/env node
import { hostConfigSchema } from '../src/config/host.js';
import { loadConfigFile, validateConfig } from '../src/config/load.js';
import { createProgram, runProgram, withLogOptions, type LogFlags } from '../src/cli/program.js';
import { runHost } from '../src/cli/run-host.js';
import { demoHostConfig, describeRoles } from '../src/cli/host-commands.js';
import { printStatus, type StatusOptions } from '../src/cli/status.js';

const program = createProgram('outpost', 'Run any set of outpost roles (cert, speedtest, monitor, send, recv) in one supervisor process.');

withLogOptions(program.command('run').description('run the roles a host config names'))
  .requiredOption('-c, --config <file>', 'host config file (JSON): {"roles": {"monitor": {...}}}')
  .action(async (options: LogFlags & { config: string }) => {
    const config = await loadConfigFile(hostConfigSchema, options.config);
    await runHost(config, { ...options, configPath: options.config, onStarted: ({ urls }) => printUrls(urls) });
  });

withLogOptions(program.command('demo').description('run every implemented role on loopback with safe settings and print each URL'))
  .action(async (options: LogFlags) => {
    const input = demoHostConfig();
    if (input === undefined) {
      process.stdout.write('outpost demo: no role is implemented in this build yet; nothing to run.\n');
      return;
    }
    const config = validateConfig(hostConfigSchema, input);
    await runHost(config, { ...options, onStarted: ({ endpoints, startupMs }) => {
      for (const { role, url } of endpoints) process.stdout.write(`${role.padEnd(10)} ${url}\n`);
      process.stdout.write(`ready in ${startupMs}ms; press Ctrl-C to stop\n`);
    } });
  });

program
  .command('check')
  .description('validate a host config and exit (0 when valid, 2 with every problem otherwise)')
  .requiredOption('-c, --config <file>', 'host config file (JSON)')
  .action(async (options: { config: string }) => {
    await loadConfigFile(hostConfigSchema, options.config);
    process.stdout.write(`${options.config}: valid\n`);
  });

program
  .command('status')
  .description('ask the running outpost (its local control socket) for its roles, actors, restarts, uptimes and URLs')
  .option('-c, --config <file>', 'the host config the running outpost was started with (to find its socket)')
  .option('-s, --socket <path>', 'the control socket (default: supervisor.control_socket, else $RUNTIME_DIRECTORY/control.sock, $XDG_RUNTIME_DIR/outpost.sock or /tmp/outpost-<uid>/control.sock)')
  .option('--json', 'print the status as JSON')
  .action(async (options: StatusOptions) => {
    await printStatus(options);
  });

program
  .command('roles')
  .description('list the roles and whether this build implements them')
  .action(() => {
    process.stdout.write(describeRoles());
  });

runProgram(program);

function printUrls(urls: readonly string[]): void {
  for (const url of urls) process.stdout.write(`${url}\n`);
}
