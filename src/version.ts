import { readFileSync } from 'node:fs';

// package.json is two levels above this file both in the source tree and in dist/src/.
const packageJsonUrl = new URL('../../package.json', import.meta.url);

interface PackageJson {
  name: string;
  version: string;
}

const packageJson = JSON.parse(readFileSync(packageJsonUrl, 'utf8')) as PackageJson;

export const packageName = packageJson.name;
export const version = packageJson.version;
/** The package root: the folder holding package.json, LICENSE and dist/. */
export const packageRoot = new URL('../../', import.meta.url);

/** Pre-release builds (`0.1.0-beta.1`) offer demo conveniences that a release must not. */
export const isBetaBuild = version.includes('-');
