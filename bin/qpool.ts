#!/usr/bin/env node
import { qpoolProgram } from '../actors/qpool/index.js';
import { runProgram } from '../src/cli/program.js';

runProgram(qpoolProgram());
