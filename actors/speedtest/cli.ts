// The speedtest role's executable for bin/netspeed.ts: its program, which loads the role's code only when a command
// runs it (the role's index.ts loads all of it, which --version and --help never need).
export { netspeedProgram } from './cli/program.js';
