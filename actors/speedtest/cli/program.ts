// The `netspeed` executable: the speedtest role as a server, and the terminal client. The server's
// role and the supervisor are loaded when `netspeed server` runs: the client does without them.
import { InvalidArgumentError, Option, type Command } from 'commander';
import { defaultTimeoutSeconds, runClient, type OutputMode } from '../client/run.js';
import { defaultServerPort, serverAddress } from '../client/server-url.js';
import { editDistance } from '../../../src/config/format.js';
import { allowedHostOption } from '../../../src/cli/allowed-host-option.js';
import { createProgram, withLogOptions, type LogFlags } from '../../../src/cli/program.js';

export function netspeedProgram(): Command {
  const program = createProgram('netspeed', 'Network speed test: a server with a browser page, and a terminal client.');

  withLogOptions(program.command('server').description('run the speed test server (page at /, API under /api)'))
    .option('-H, --host <address>', 'address to bind to', '0.0.0.0')
    .option('-p, --port <port>', 'port (0 picks a free one)', '8080')
    .option('-n, --name <name>', 'server name shown on the page', 'Speed Test')
    .option('-d, --duration <seconds>', 'seconds each phase of the browser test lasts', '8')
    .option('--threads <n>', 'front threads sharing the port')
    .addOption(allowedHostOption())
    .option('--results <file>', 'keep the results people save in this file (SQLite where Node has node:sqlite, else JSON Lines)')
    .option('--results-max <n>', 'results kept at most; past it the oldest go', '1000')
    .option('--results-keep-address', 'keep the address each result was sent from')
    .action(
      async (
        options: LogFlags & {
          host: string;
          port: string;
          name: string;
          duration: string;
          threads?: string;
          allowedHost?: string[];
          results?: string;
          resultsMax: string;
          resultsKeepAddress?: boolean;
        },
      ) => {
        const speedtest = {
          host: options.host,
          port: Number(options.port),
          name: options.name,
          duration_seconds: Number(options.duration),
          // -q of netspeed server is the spec's "suppress request logging".
          quiet: options.quiet === true,
          ...(options.threads === undefined ? {} : { threads: Number(options.threads) }),
          allowed_hosts: options.allowedHost ?? [],
          ...(options.results === undefined ? {} : { results_file: options.results }),
          results_max: Number(options.resultsMax),
          results_keep_address: options.resultsKeepAddress === true,
        };
        const [{ hostConfigFromFlags }, { printUrls, runHost }, { speedtestRole }] = await Promise.all([
          import('../../../src/cli/role-flags.js'),
          import('../../../src/cli/run-host.js'),
          import('../role.js'),
        ]);
        const config = hostConfigFromFlags(speedtestRole, speedtest, {
          host: '-H, --host',
          port: '-p, --port',
          name: '-n, --name',
          duration_seconds: '-d, --duration',
          threads: '--threads',
          allowed_hosts: '--allowed-host',
          results_file: '--results',
          results_max: '--results-max',
          results_keep_address: '--results-keep-address',
        });
        await runHost(config, { ...options, known: [speedtestRole], onStarted: printUrls });
      },
    );

  program
    .command('client', { isDefault: true })
    .description('measure ping, download and upload against SERVER (the default command)')
    .argument('<SERVER>', `server URL, host:port or host; without a scheme, http:// is assumed, and without a port ${defaultServerPort}`, checkedServer)
    .addOption(new Option('-c, --compact', 'one line: ping <x.x> ms / down <x.xx> Mbps / up <x.xx> Mbps').conflicts('json'))
    .option('-j, --json', 'JSON output')
    .option(
      '--timeout <seconds>',
      'give up when connecting, the first byte of an answer or the next byte of a transfer takes longer',
      positiveSeconds,
      defaultTimeoutSeconds,
    )
    .option('--save', "keep the result on the server (it must run with --results) and print its page's address")
    .action(async (server: string, options: { compact?: boolean; json?: boolean; timeout: number; save?: boolean }) => {
      const mode: OutputMode = options.json === true ? 'json' : options.compact === true ? 'compact' : 'normal';
      await runClient(server, { mode, timeoutSeconds: options.timeout, save: options.save === true });
    });

  // `netspeed serve -p 1` would otherwise stop at the client's unknown -p before its SERVER is looked at.
  program.hook('preSubcommand', (_program, command) => {
    const [first] = _program.args;
    const problem = command.name() === 'client' && first !== undefined ? serverProblem(first) : undefined;
    if (problem !== undefined) program.error(`error: ${problem}`, { exitCode: 2 });
  });

  return program;
}

/** A SERVER that cannot be one is a usage error (exit 2), as a bad option is; a near-miss of `server` says so. */
function checkedServer(value: string): string {
  const problem = serverProblem(value);
  if (problem !== undefined) throw new InvalidArgumentError(problem);
  return value;
}

function serverProblem(value: string): string | undefined {
  if (value !== 'server' && editDistance(value, 'server') <= 2) return `${value} is not a command or a server address; did you mean netspeed server?`;
  try {
    serverAddress(value);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

function positiveSeconds(value: string): number {
  const seconds = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value) || !(seconds > 0)) throw new InvalidArgumentError('must be a positive number of seconds');
  return seconds;
}
