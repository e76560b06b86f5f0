// What a thread loads before it can answer, which makes its cold start: ES modules imported statically are
// all read, compiled and run before the thread's first line, on the ready path of every role; a package
// only some later request needs is imported where it is used. Read from the TypeScript sources along
// static imports (a dynamic `import()` is not followed), as tsc resolves their relative specifiers.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import test from 'ava';
import { projectPath } from '../helpers/process.js';

/** The specifiers of static imports and re-exports; `import type` loads nothing and is left out. */
function staticSpecifiers(source: string): string[] {
  const found = source.matchAll(/(?:^|\n)\s*(?:import|export)(?!\s+type\b)\b[^;'"]*?\bfrom\s+'([^']+)'|(?:^|\n)\s*import\s+'([^']+)'/g);
  return [...found].map((match) => match[1] ?? match[2] ?? '');
}

/** The packages (bare specifiers, node: builtins left out) loaded at start by the thread running `entry`. */
function packagesLoadedAtStart(entry: string): Set<string> {
  const packages = new Set<string>();
  const seen = new Set<string>();
  const queue = [projectPath(entry)];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    if (seen.has(file)) continue;
    seen.add(file);
    for (const specifier of staticSpecifiers(readFileSync(file, 'utf8'))) {
      if (specifier.startsWith('node:')) continue;
      if (!specifier.startsWith('.')) {
        packages.add(specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]!);
        continue;
      }
      const target = resolve(dirname(file), specifier).replace(/\.js$/, '.ts');
      if (existsSync(target)) queue.push(target);
    }
  }
  return packages;
}

test('the walk finds what a thread does load at start', (t) => {
  const supervisor = packagesLoadedAtStart('src/cli/run-host.ts');
  t.true(supervisor.has('winston'), 'the supervisor log is loaded with run-host');
  t.true(packagesLoadedAtStart('actors/http-front/index.ts').has('uWebSockets.js'), 'a front loads uWS through src/http');
});

test('the supervisor thread loads piscina with the first job, not at start', (t) => {
  t.false(packagesLoadedAtStart('src/cli/run-host.ts').has('piscina'));
  t.false(packagesLoadedAtStart('actors/registry.ts').has('piscina'));
});

test('the sampler thread loads ps-list (macOS only) when it lists processes there, not at start', (t) => {
  t.false(packagesLoadedAtStart('actors/monitor/sampler/index.ts').has('ps-list'));
});

// Every thread's entry: the executables' main threads, each actor kind's, and the sites a front loads.
const threadEntries = [
  'bin/outpost.ts',
  'bin/certhub.ts',
  'bin/certhub-agent.ts',
  'actors/http-front/index.ts',
  'actors/cert/site/site.ts',
  'actors/qpool/site/site.ts',
  'actors/speedtest/site/site.ts',
  'actors/monitor/site/site.ts',
  'actors/cert/domains/index.ts',
  'actors/cert/dns/index.ts',
  'actors/cert/acme/index.ts',
  'actors/cert/audit/index.ts',
  'actors/monitor/sampler/index.ts',
  'actors/proxy/proxy-front/index.ts',
  'actors/proxy/cert-fetcher/index.ts',
  'actors/qpool/collector/index.ts',
  'actors/qpool/diode-sender/index.ts',
  'actors/qpool/diode-receiver/index.ts',
  'actors/qpool/pool/index.ts',
];

test('no thread loads the X.509 libraries at start, and only the ACME thread loads acme-client (they cost 260 and 370 ms of CPU a thread)', (t) => {
  for (const entry of threadEntries) {
    const packages = packagesLoadedAtStart(entry);
    for (const heavy of ['@peculiar/x509', '@peculiar/asn1-schema', '@peculiar/asn1-x509']) t.false(packages.has(heavy), `${entry} loads ${heavy} at start`);
    if (entry !== 'actors/cert/acme/index.ts') t.false(packages.has('acme-client'), `${entry} loads acme-client at start`);
  }
  t.true(packagesLoadedAtStart('actors/cert/acme/index.ts').has('acme-client'), 'the walk sees the ACME thread load it');
  t.true(packagesLoadedAtStart('actors/cert/domains/demo-certificate.ts').has('@peculiar/x509'), 'the walk sees the module that imports it');
});

test('no thread but the proxy front loads ws, and none loads undici, at start', (t) => {
  for (const entry of threadEntries) {
    const packages = packagesLoadedAtStart(entry);
    t.false(packages.has('undici'), `${entry} loads undici at start`);
    if (entry !== 'actors/proxy/proxy-front/index.ts') t.false(packages.has('ws'), `${entry} loads ws at start`);
  }
});
