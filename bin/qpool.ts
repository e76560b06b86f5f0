#!/usr/bin/env node
import { plannedCommand } from '../src/cli/planned.js';
import { createProgram, runProgram } from '../src/cli/program.js';

const program = createProgram('qpool', 'Quantum random pool: collect values from ANU, push them over a one-way diode, serve each once.');
plannedCommand(program, 'collect', 'collect values and send them across the diode', 'send');
plannedCommand(program, 'serve', 'receive values from the diode and serve them over HTTP', 'recv');
plannedCommand(program, 'stats', 'print the pool figures of a running server', 'recv');
plannedCommand(program, 'setup', 'write a config for the sending or receiving machine', 'send');
plannedCommand(program, 'sample-config', 'print a full example config', 'send');
runProgram(program);
