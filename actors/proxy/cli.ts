// The proxy role's executable for bin/certhub-agent.ts: its program, which loads the role's code only when a command
// runs it (the role's index.ts loads all of it, which --version and --help never need).
export { certhubAgentProgram } from './cli/program.js';
