import { ConfigError, exitCodes } from '../errors.js';
import { exitAfterOutput } from './output.js';

/** Prints why the command cannot go on and exits: 2 for configuration and usage errors, 1 otherwise. */
export function exitWithError(program: string, error: unknown): Promise<never> {
  if (error instanceof ConfigError) {
    process.stderr.write(`${program}: invalid configuration:\n${error.problems.map((problem) => `  ${problem}`).join('\n')}\n`);
    return exitAfterOutput(exitCodes.usage);
  }
  process.stderr.write(`${program}: ${error instanceof Error ? error.message : String(error)}\n`);
  return exitAfterOutput(exitCodes.failure);
}
