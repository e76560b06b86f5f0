// The cert role's executable for bin/certhub.ts: its program, which loads the role's code only when a command
// runs it (the role's index.ts loads all of it, which --version and --help never need).
export { certhubProgram } from './cli/program.js';
