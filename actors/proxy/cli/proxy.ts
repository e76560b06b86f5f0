// `certhub-agent proxy -c FILE`: the proxy role alone, its settings from the Proxy JSON the certhub
// panel exports (with the optional listening and material keys of actors/proxy/config.ts).
// The role and the supervisor are loaded when the command runs, not by `certhub-agent fetch`.
import type { Command } from 'commander';
import { withLogOptions, type LogFlags } from '../../../src/cli/program.js';

export function proxyCommand(program: Command): Command {
  return withLogOptions(program.command('proxy').description('run a TLS reverse proxy routing domains to backends'))
    .requiredOption(
      '-c, --config <file>',
      'proxy config (JSON): the Proxy export of the certhub panel, with optional host, port, redirect_port, material_dir, threads',
    )
    .option('--host-name <name>', "the name this host reports to certhub with (host_name in the file); default: the system's host name")
    .action(async (options: LogFlags & { config: string; hostName?: string }) => {
      const [{ proxyConfigSchema }, { loadConfigFile }, { singleRoleHost }, { printUrls, runHost }, { proxyRole }] = await Promise.all([
        import('../config.js'),
        import('../../../src/config/load.js'),
        import('../../../src/config/host.js'),
        import('../../../src/cli/run-host.js'),
        import('../role.js'),
      ]);
      const { hostNameOptionProblem } = await import('../client/host-identity.js');
      const problem = options.hostName === undefined ? undefined : hostNameOptionProblem(options.hostName);
      if (problem !== undefined) {
        const { ConfigError } = await import('../../../src/errors.js');
        throw new ConfigError([`--host-name ${problem}`]);
      }
      const read = async () => {
        const config = await loadConfigFile(proxyConfigSchema, options.config);
        return singleRoleHost('proxy', options.hostName === undefined ? config : { ...config, host_name: options.hostName });
      };
      // SIGHUP reads the file again: its routes change live, other keys are named as needing a restart.
      // Problems name the option as proxy.json holds it (`ca_bundle`), after the file's name.
      await runHost(await read(), {
        ...options,
        known: [proxyRole],
        file: options.config,
        optionPaths: 'role',
        onStarted: printUrls,
        configPath: options.config,
        reread: read,
      });
    });
}
