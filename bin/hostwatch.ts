#!/usr/bin/env node
import { roleNotImplemented } from '../src/cli/planned.js';
import { createProgram, runProgram } from '../src/cli/program.js';

const program = createProgram('hostwatch', 'Live dashboard of this machine: CPU, memory, history, processes, containers, ports.');
program.action(roleNotImplemented('hostwatch', 'monitor'));
runProgram(program);
