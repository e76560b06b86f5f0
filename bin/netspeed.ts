#!/usr/bin/env node
import { netspeedProgram } from '../actors/speedtest/cli.js';
import { runProgram } from '../src/cli/program.js';

runProgram(netspeedProgram());
