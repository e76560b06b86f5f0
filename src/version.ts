import { readFileSync } from 'node:fs';

// package.json is two levels above this file both in the source tree and in dist/src/.
const packageJsonUrl = new URL('../../package.json', import.meta.url);

interface PackageJson {
  name: string;
  version: string;
  engines: { node: string };
}

/** dist/build-info.json, written by src/build/build-info.ts. */
export interface BuildInfo {
  /** The git commit built from, `-dirty` appended when the tree had changes; absent outside git. */
  commit?: string;
}

const packageJson = JSON.parse(readFileSync(packageJsonUrl, 'utf8')) as PackageJson;

export const packageName = packageJson.name;
export const version = packageJson.version;
/** The Node.js versions the package runs on, as package.json's `engines` says them (`^20.19.0 || ^22.12.0`). */
export const supportedNode = packageJson.engines.node;
/** The package root: the folder holding package.json, LICENSE and dist/. */
export const packageRoot = new URL('../../', import.meta.url);

function readBuildInfo(): BuildInfo {
  try {
    return JSON.parse(readFileSync(new URL('dist/build-info.json', packageRoot), 'utf8')) as BuildInfo;
  } catch {
    // Run from the sources without a build: nothing was recorded.
    return {};
  }
}

/** The commit this build was made from, when it was made from git. */
export const commit = readBuildInfo().commit;

/** What `--version` prints: `certhub 0.1.0 (commit <the whole hash, as /api/version gives it>)`. */
export function versionLine(name: string): string {
  return commit === undefined ? `${name} ${version}` : `${name} ${version} (commit ${commit})`;
}

/** Pre-release builds (`0.1.0-beta.1`) offer demo conveniences that a release must not. */
export const isBetaBuild = version.includes('-');
