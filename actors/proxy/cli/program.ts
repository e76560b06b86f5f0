// The `certhub-agent` executable: fetch (certificates from certhub) and proxy (the proxy role alone).
import type { Command } from 'commander';
import { createProgram } from '../../../src/cli/program.js';
import { fetchCommand } from './fetch.js';
import { proxyCommand } from './proxy.js';

export function certhubAgentProgram(): Command {
  const program = createProgram('certhub-agent', 'Fetch certificates from a certhub server and run a TLS proxy to local backends.');
  fetchCommand(program);
  proxyCommand(program);
  return program;
}
