// The `hostwatch` executable: the monitor role alone, its settings from the command line. The role
// and the supervisor are loaded when it runs: --version, --help and a usage error do without them.
import type { Command } from 'commander';
import { allowedHostOption } from '../../../src/cli/allowed-host-option.js';
import { createProgram, withLogOptions, type LogFlags } from '../../../src/cli/program.js';

export function hostwatchProgram(): Command {
  const program = createProgram('hostwatch', 'Live dashboard of this machine: CPU, memory, history, processes, containers, ports.');
  withLogOptions(program)
    .option('-p, --port <port>', 'port to listen on (0 picks a free one)', '8080')
    .option('-H, --host <address>', 'address to bind to', '0.0.0.0')
    .option('--interval <seconds>', 'seconds between samples', '2')
    .option('--no-containers', 'do not list container processes')
    .option('--show-container-args', 'show container command lines with their arguments (these often carry passwords); the program alone otherwise')
    .addOption(allowedHostOption({ everyBind: true }))
    .action(
      async (
        options: LogFlags & { port: string; host: string; interval: string; containers: boolean; showContainerArgs?: boolean; allowedHost?: string[] },
      ) => {
        const [{ hostConfigFromFlags }, { printUrls, runHost }, { monitorRole }] = await Promise.all([
          import('../../../src/cli/role-flags.js'),
          import('../../../src/cli/run-host.js'),
          import('../role.js'),
        ]);
        const config = hostConfigFromFlags(
          monitorRole,
          {
            host: options.host,
            port: Number(options.port),
            interval_seconds: Number(options.interval),
            containers: options.containers,
            show_container_args: options.showContainerArgs === true,
            allowed_hosts: options.allowedHost ?? [],
          },
          { host: '-H, --host', port: '-p, --port', interval_seconds: '--interval', allowed_hosts: '--allowed-host' },
        );
        await runHost(config, { ...options, known: [monitorRole], onStarted: printUrls });
      },
    );
  return program;
}
