#!/usr/bin/env node
import { plannedCommand } from '../src/cli/planned.js';
import { createProgram, runProgram } from '../src/cli/program.js';
import { proxyCommand } from '../src/cli/certhub-agent/proxy.js';

const program = createProgram('certhub-agent', 'Fetch certificates from a certhub server and run a TLS proxy to local backends.');
plannedCommand(program, 'fetch', 'fetch certificate material for a domain');
proxyCommand(program);
runProgram(program);
