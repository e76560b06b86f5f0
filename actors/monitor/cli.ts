// The monitor role's executable for bin/hostwatch.ts: its program, which loads the role's code only when a command
// runs it (the role's index.ts loads all of it, which --version and --help never need).
export { hostwatchProgram } from './cli/program.js';
