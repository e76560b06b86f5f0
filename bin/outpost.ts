#!/usr/bin/env node
import { hostConfigSchema } from '../src/config/host.js';
import { configName, validateConfig } from '../src/config/load.js';
import { configFileOption, createProgram, runProgram, withLogOptions, type LogFlags } from '../src/cli/program.js';
import { runHost } from '../src/cli/run-host.js';
import { checkHostFiles, loadHostConfig } from '../src/cli/host-check.js';
import { demoHostConfig, describeRoles, printEndpoints } from '../src/cli/host-commands.js';
import { printStatus, type StatusOptions } from '../src/cli/status.js';
import { roleNames } from '../src/config/role.js';

const program = createProgram('outpost', `Run any set of outpost roles (${roleNames.join(', ')}) in one supervisor process.`);

withLogOptions(program.command('run').description('run the roles a host config names'))
  .addOption(configFileOption('host config file (JSON): {"roles": {"monitor": {...}}}; - reads standard input').makeOptionMandatory())
  .action(async (options: LogFlags & { config: string }) => {
    const { config, roles } = await loadHostConfig(options.config);
    await runHost(config, { ...options, file: options.config, configPath: options.config, roles, onStarted: ({ endpoints }) => printEndpoints(endpoints, roles) });
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
      printEndpoints(endpoints, roleNames);
      process.stdout.write(`ready in ${startupMs}ms; press Ctrl-C to stop\n`);
    } });
  });

program
  .command('check')
  .description('check host configs as `run` would, binding nothing: exit 0 when every one is valid, 2 with every problem otherwise')
  .addOption(configFileOption('host config file (JSON); - reads standard input'))
  .argument('[files...]', 'more host config files')
  .action(async (more: string[], options: { config?: string }) => {
    const files = [...(options.config === undefined ? [] : [options.config]), ...more];
    if (files.length === 0) program.error('error: check needs a config file: outpost check -c host.json [more.json ...]', { exitCode: 2 });
    await checkHostFiles(files);
    for (const file of files) process.stdout.write(`${configName(file)}: valid\n`);
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
