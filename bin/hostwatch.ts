#!/usr/bin/env node
import { hostwatchProgram } from '../actors/monitor/cli.js';
import { runProgram } from '../src/cli/program.js';

runProgram(hostwatchProgram());
