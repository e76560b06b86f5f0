// The `outpost` executable: run, demo, check, status and roles over the roles it is handed
// (actors/registry.ts), so the supervisor's commands name no role.
import type { Command } from 'commander';
import { hostConfigSchema } from '../config/host.js';
import { configName, validateConfig } from '../config/load.js';
import type { RoleList } from '../config/role.js';
import { checkHostFiles, loadHostConfig } from './host-check.js';
import { demoHostConfig, describeRoles, printEndpoints, startedDemo } from './host-commands.js';
import { configFileOption, createProgram, withLogOptions, type LogFlags } from './program.js';
import { runHost } from './run-host.js';
import { printStatus, type StatusOptions } from './status.js';

export function outpostProgram(known: RoleList): Command {
  const names = known.map((role) => role.name);
  const program = createProgram('outpost', `Run any set of outpost roles (${names.join(', ')}) in one supervisor process.`);

  withLogOptions(program.command('run').description('run the roles a host config names'))
    .addOption(configFileOption('host config file (JSON): {"roles": {"<role>": {...}}}; - reads standard input').makeOptionMandatory())
    .action(async (options: LogFlags & { config: string }) => {
      const { config, roles } = await loadHostConfig(options.config, known);
      await runHost(config, {
        ...options,
        known,
        file: options.config,
        configPath: options.config,
        order: roles,
        onStarted: ({ endpoints }) => printEndpoints(endpoints, roles),
      });
    });

  withLogOptions(program.command('demo').description('run every role on loopback with safe settings and print each URL')).action(async (options: LogFlags) => {
    const config = validateConfig(hostConfigSchema(known), await demoHostConfig(known));
    await runHost(config, {
      ...options,
      known,
      onStarted: async ({ endpoints, startupMs }, publish) => {
        printEndpoints(endpoints, names, await startedDemo(known, config, endpoints, publish));
        process.stdout.write(`ready in ${startupMs}ms; press Ctrl-C to stop\n`);
      },
    });
  });

  program
    .command('check')
    .description('check host configs as `run` would, binding nothing: exit 0 when every one is valid, 2 with every problem otherwise')
    .addOption(configFileOption('host config file (JSON); - reads standard input'))
    .argument('[files...]', 'more host config files')
    .action(async (more: string[], options: { config?: string }) => {
      const files = [...(options.config === undefined ? [] : [options.config]), ...more];
      if (files.length === 0) program.error('error: check needs a config file: outpost check -c host.json [more.json ...]', { exitCode: 2 });
      await checkHostFiles(files, known);
      for (const file of files) process.stdout.write(`${configName(file)}: valid\n`);
    });

  program
    .command('status')
    .description('ask the running outpost (its local control socket) for its roles, actors, restarts, uptimes and URLs')
    .option('-c, --config <file>', 'the host config the running outpost was started with (to find its socket)')
    .option(
      '-s, --socket <path>',
      'the control socket (default: supervisor.control_socket, else $RUNTIME_DIRECTORY/control.sock, $XDG_RUNTIME_DIR/outpost.sock or /tmp/outpost-<uid>/control.sock)',
    )
    .option('--json', 'print the status as JSON')
    .action(async (options: StatusOptions) => {
      await printStatus(options);
    });

  program
    .command('roles')
    .description('list the roles this build runs')
    .action(() => {
      process.stdout.write(describeRoles(known));
    });
  return program;
}
