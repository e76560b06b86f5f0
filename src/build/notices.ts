// Build step: gathers the licence of every production dependency into dist/NOTICES.txt, which
// `--license` prints after the project's own licence.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageRoot } from '../version.js';

interface Manifest {
  name: string;
  version: string;
  license?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

const root = fileURLToPath(packageRoot);

// uws-pack re-packs uWebSockets.js without its licence; the binaries it ships are upstream's, under
// Apache-2.0, so the upstream notice is added by hand.
const upstreamNotices: Record<string, string> = {
  'uws-pack': [
    'uWebSockets.js (https://github.com/uNetworking/uWebSockets.js), shipped as its binaries by uws-pack.',
    'Copyright (c) Alex Hultman and contributors. Licensed under the Apache License, Version 2.0:',
    '',
    readFileSync(join(root, 'src/build/apache-2.0.txt'), 'utf8'),
  ].join('\n'),
};

function readManifest(dir: string): Manifest {
  return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;
}

/** Node's lookup: node_modules/<name> in `from` and then in each folder above it. */
function resolvePackageDir(name: string, from: string): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}

function licenseFileText(dir: string): string | undefined {
  const file = readdirSync(dir).find((name) => /^(licen[cs]e|copying|notice)(\.|$)/i.test(name));
  return file === undefined ? undefined : readFileSync(join(dir, file), 'utf8').trim();
}

const seen = new Map<string, { manifest: Manifest; dir: string }>();
const queue: { name: string; from: string }[] = Object.keys(readManifest(root).dependencies ?? {}).map((name) => ({ name, from: root }));
while (queue.length > 0) {
  const { name, from } = queue.shift()!;
  const dir = resolvePackageDir(name, from);
  if (dir === undefined) continue; // an optional dependency not installed on this platform
  const manifest = readManifest(dir);
  const key = `${manifest.name}@${manifest.version}`;
  if (seen.has(key)) continue;
  seen.set(key, { manifest, dir });
  for (const dependency of Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies })) queue.push({ name: dependency, from: dir });
}

const sections = [...seen.entries()]
  .sort(([a], [b]) => a.localeCompare(b))
  .map(([key, { manifest, dir }]) => {
    const text =
      upstreamNotices[manifest.name] ?? licenseFileText(dir) ?? `Licensed under ${manifest.license ?? 'an unstated licence'}; no licence file is shipped.`;
    return `${key} (${manifest.license ?? 'unknown'})\n${'-'.repeat(78)}\n${text}\n`;
  });
writeFileSync(join(root, 'dist/NOTICES.txt'), sections.join('\n'));
console.log(`dist/NOTICES.txt: ${sections.length} packages`);
