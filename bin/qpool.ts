#!/usr/bin/env node
// The program module itself, not the role's index.ts: that loads the role's whole code, which
// --version, --help and most commands never run.
import { qpoolProgram } from '../actors/qpool/cli/program.js';
import { runProgram } from '../src/cli/program.js';

runProgram(qpoolProgram());
