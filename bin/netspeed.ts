#!/usr/bin/env node
import { netspeedProgram } from '../actors/speedtest/index.js';
import { runProgram } from '../src/cli/program.js';

runProgram(netspeedProgram());
