#!/usr/bin/env node
import { certhubAgentProgram } from '../actors/proxy/index.js';
import { runProgram } from '../src/cli/program.js';

runProgram(certhubAgentProgram());
