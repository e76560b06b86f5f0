// The commander setup every executable shares: `--version` as `<name> <version>`, `--license`,
// suggestions after a typo, and exit code 2 for any usage error (commander's own default is 1).
import { Command, type CommanderError } from 'commander';
import { exitCodes } from '../errors.js';
import { version } from '../version.js';
import { exitWithError } from './fail.js';
import { licenseText } from './license.js';

export function createProgram(name: string, description: string): Command {
  const program = new Command(name);
  // exitOverride and output settings are copied to subcommands made after this point.
  program
    .description(description)
    .version(`${name} ${version}`, '--version', 'print the version and exit')
    .helpOption('-h, --help', 'show help and exit')
    .option('--license', 'print the licence and third-party notices and exit')
    .on('option:license', () => {
      process.stdout.write(licenseText());
      process.exit(exitCodes.ok);
    })
    .showSuggestionAfterError(true)
    .showHelpAfterError(`(run "${name} --help" for usage)`)
    .exitOverride((error: CommanderError) => {
      process.exit(error.exitCode === 0 ? exitCodes.ok : exitCodes.usage);
    });
  return program;
}

/** Adds the logging options of every command that runs a supervisor. */
export function withLogOptions(command: Command): Command {
  return command
    .option('--log-json', 'write log records as JSON lines (for log collectors)')
    .option('-q, --quiet', 'log warnings and errors only')
    .option('--debug', 'also log debug records');
}

export interface LogFlags {
  logJson?: boolean;
  quiet?: boolean;
  debug?: boolean;
}

/** Parses argv and runs the chosen action; a failure is reported and exits 2 (config) or 1. */
export function runProgram(program: Command, argv = process.argv): void {
  program.parseAsync(argv).catch((error: unknown) => exitWithError(program.name(), error));
}
