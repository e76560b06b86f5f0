#!/usr/bin/env node
import { certhubProgram } from '../actors/cert/index.js';
import { runProgram } from '../src/cli/program.js';

runProgram(certhubProgram());
