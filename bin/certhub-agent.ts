#!/usr/bin/env node
import { fetchCommand } from '../actors/proxy/cli/fetch.js';
import { proxyCommand } from '../actors/proxy/cli/proxy.js';
import { createProgram, runProgram } from '../src/cli/program.js';

const program = createProgram('certhub-agent', 'Fetch certificates from a certhub server and run a TLS proxy to local backends.');
fetchCommand(program);
proxyCommand(program);
runProgram(program);
