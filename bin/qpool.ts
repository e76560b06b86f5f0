#!/usr/bin/env node
import { qpoolProgram } from '../actors/qpool/cli.js';
import { runProgram } from '../src/cli/program.js';

runProgram(qpoolProgram());
