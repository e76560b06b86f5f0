#!/usr/bin/env node
import { fetchCommand } from '../src/cli/certhub-agent/fetch.js';
import { plannedCommand } from '../src/cli/planned.js';
import { createProgram, runProgram } from '../src/cli/program.js';

const program = createProgram('certhub-agent', 'Fetch certificates from a certhub server and run a TLS proxy to local backends.');
fetchCommand(program);
plannedCommand(program, 'proxy', 'run a TLS reverse proxy routing domains to backends');
runProgram(program);
