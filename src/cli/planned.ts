import type { Command } from 'commander';
import { exitCodes } from '../errors.js';
import { plannedRoles } from '../roles/registry.js';
import type { RoleName } from '../roles/role.js';
import { version } from '../version.js';
import { exitAfterOutput } from './output.js';

/** The action of a command whose role has not landed in this build: says so and exits 2. */
export function roleNotImplemented(program: string, role: RoleName): () => Promise<never> {
  return () => {
    process.stderr.write(`${program}: the ${role} role (${plannedRoles[role].summary}) is not implemented in outpost ${version} yet\n`);
    return exitAfterOutput(exitCodes.usage);
  };
}

/** Adds a command of a role that has not landed; its help says so. */
export function plannedCommand(program: Command, name: string, description: string, role: RoleName): Command {
  return program
    .command(name)
    .description(`${description} (not implemented yet)`)
    .allowUnknownOption(false)
    .action(roleNotImplemented(program.name(), role));
}
