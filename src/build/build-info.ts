// Build step: records the commit the build is made from into dist/build-info.json, which
// src/version.ts reads; rewritten on every build, `{}` when the build is not made from git.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gitCommitOf } from './git-commit.js';
import type { BuildInfo } from '../version.js';
import { packageRoot } from '../version.js';

const root = fileURLToPath(packageRoot);
const commit = gitCommitOf(root);
const info: BuildInfo = commit === undefined ? {} : { commit };
writeFileSync(join(root, 'dist/build-info.json'), `${JSON.stringify(info)}\n`);
