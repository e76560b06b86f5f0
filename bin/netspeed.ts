#!/usr/bin/env node
import { plannedCommand } from '../src/cli/planned.js';
import { createProgram, runProgram } from '../src/cli/program.js';

const program = createProgram('netspeed', 'Network speed test: a server with a browser page, and a terminal client.');
plannedCommand(program, 'server', 'run the speed test server', 'speedtest');
plannedCommand(program, 'client', 'measure ping, download and upload against a server', 'speedtest');
runProgram(program);
