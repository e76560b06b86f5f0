#!/usr/bin/env node
import { plannedCommand } from '../src/cli/planned.js';
import { createProgram, runProgram } from '../src/cli/program.js';

const program = createProgram('certhub', 'Certificate distribution server: DNS records, ACME DNS-01 certificates and per-domain tokens.');
plannedCommand(program, 'setup', 'create a data directory with an admin key', 'cert');
plannedCommand(program, 'run', 'run the certificate server', 'cert');
runProgram(program);
