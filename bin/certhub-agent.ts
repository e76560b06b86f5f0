#!/usr/bin/env node
import { certhubAgentProgram } from '../actors/proxy/cli.js';
import { runProgram } from '../src/cli/program.js';

runProgram(certhubAgentProgram());
