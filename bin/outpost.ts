#!/usr/bin/env node
import { roles } from '../actors/registry.js';
import { outpostProgram } from '../src/cli/outpost-program.js';
import { runProgram } from '../src/cli/program.js';

runProgram(outpostProgram(roles));
