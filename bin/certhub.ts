#!/usr/bin/env node
import { certhubProgram } from '../actors/cert/cli.js';
import { runProgram } from '../src/cli/program.js';

runProgram(certhubProgram());
