// The commander setup every executable shares: `--version` as `<name> <version> (commit <hash>)`, `--license`,
// suggestions after a typo, exit code 2 for any usage error (commander's own default is 1), and no
// debugger on SIGUSR1 (debugger-signal.ts), and a last help line naming the executable's manual.
//
// Commander's exits (after --version, --help, a usage error) and --license throw a CommanderError
// instead of exiting, so that runProgram exits once the output has reached a pipe (see output.ts).
import { fileURLToPath } from 'node:url';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { exitCodes } from '../errors.js';
import { packageRoot, versionLine } from '../version.js';
import { ignoreDebuggerSignal } from './debugger-signal.js';
import { exitWithError } from './fail.js';
import { licenseText } from './license.js';
import { exitAfterOutput, surviveClosedOutput } from './output.js';

export function createProgram(name: string, description: string): Command {
  ignoreDebuggerSignal();
  surviveClosedOutput();
  const program = new Command(name);
  // exitOverride and output settings are copied to subcommands made after this point.
  program
    .description(description)
    .version(versionLine(name), '--version', 'print the version and the commit it was built from, and exit')
    .helpOption('-h, --help', 'show help and exit')
    .option('--license', 'print the licence and third-party notices and exit')
    .on('option:license', () => {
      process.stdout.write(licenseText());
      throw new CommanderError(exitCodes.ok, 'outpost.license', '(license printed)');
    })
    // One voice: every error line starts with the program's name, as exitWithError's do, not commander's `error:`.
    .configureOutput({ outputError: (text, write) => write(text.replace(/^error: /, `${name}: `)) })
    .showSuggestionAfterError(true)
    .showHelpAfterError(`(run "${name} --help" for usage)`)
    // 'afterAll': the help of every command ends with it too (`certhub run --help`).
    .addHelpText('afterAll', `\nManual: ${manualPath(name)}`)
    .exitOverride((error: CommanderError) => {
      throw error;
    });
  return program;
}

/** The manual of executable `name` where the package is installed: docs/<name>.md. */
export function manualPath(name: string): string {
  return fileURLToPath(new URL(`docs/${name}.md`, packageRoot));
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

/** Parses argv and runs the chosen action; a failure is reported and exits 2 (config or usage) or 1. */
export function runProgram(program: Command, argv = process.argv): void {
  program.parseAsync(argv).catch((error: unknown) => {
    // Commander has printed what it had to say (help, version, the usage error).
    if (error instanceof CommanderError) return exitAfterOutput(error.exitCode === 0 ? exitCodes.ok : exitCodes.usage);
    return exitWithError(program.name(), error);
  });
}

/**
 * A `-c, --config <file>` option given at most once: commander keeps the last of a repeated option,
 * which would run with one of two files the user named without a word.
 */
export function configFileOption(description: string): Option {
  return new Option('-c, --config <file>', description).argParser((value: string, previous: string | undefined) => {
    if (previous !== undefined) throw new InvalidArgumentError(`-c can be given once (it was already ${previous})`);
    return value;
  });
}
