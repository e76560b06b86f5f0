import type { Command } from 'commander';
import { exitCodes } from '../errors.js';
import { version } from '../version.js';
import { exitAfterOutput } from './output.js';

/** Adds a command that has not landed in this build: its help says so, and running it says so and exits 2. */
export function plannedCommand(program: Command, name: string, description: string): Command {
  return program
    .command(name)
    .description(`${description} (not implemented yet)`)
    .allowUnknownOption(false)
    .action(() => {
      process.stderr.write(`${program.name()} ${name} is not implemented in outpost ${version} yet\n`);
      return exitAfterOutput(exitCodes.usage);
    });
}
