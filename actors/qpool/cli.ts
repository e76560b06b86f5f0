// The qpool roles' executable for bin/qpool.ts: its program, which loads the roles' code only when a
// command runs it (the roles' index.ts loads all of it, which --version and --help never need).
export { qpoolProgram } from './cli/program.js';
