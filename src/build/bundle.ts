// Build step: bundles every module Node starts a process or a thread with, over tsc's output in dist/.
// Each thread loads its module graph from scratch: unbundled, `outpost demo` spends 5.9 of its first
// 13 CPU seconds resolving and loading some 300 ES modules in 12 threads (a CPU profile).
// Each bundle is built on its own (what it imports lazily, such as a command's code, in chunks of its
// own), but for the http front's thread, which also imports the sites it serves: those bundles are
// built together and share chunks (`modulesSharingAThread`), so that thread holds one copy of each
// module, as it did before bundling.
//
// What is bundled: the executables (bin/), the benchmark hosts, and every module the code (benchmarks
// included) loads by URL at run time (`new URL('./index.js', import.meta.url)`: an actor kind's
// thread, a site, piscina's worker, a job's module, an executable a benchmark starts). Each is written
// where tsc wrote it, so every path stays as it was; the modules they import stay in dist/ unbundled,
// for the tests that import them.
//
// `import.meta.url` in a bundled module would name the bundle, not the module: it is replaced by the
// module's own URL in dist/, computed from the bundle's (`outpostDist` in the banner).
import { build, type BuildOptions, type Plugin } from 'esbuild';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageRoot } from '../version.js';

const root = fileURLToPath(packageRoot);
const outRoot = join(root, 'dist');
/** The first line of every bundle: what tells a bundle from tsc's output (test/unit/bundle.test.ts). */
export const bundleMarker = '// outpost bundle';

/**
 * Loaded where they are installed: a native addon (uWS), packages that find files of their own
 * next to their code (piscina's worker, acme-client's), prom-client (thread-metrics.ts requires it
 * lazily, and its registries must meet the fronts' metrics from the same copy), and a browser
 * driver only tests use.
 */
const external = ['uWebSockets.js', 'piscina', 'acme-client', 'prom-client', 'playwright-core'];

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

/**
 * The modules that run-time code names with `<prefix>new URL('<relative>.js', import.meta.url)`: with
 * no prefix, every module loaded by URL at run time; with `declareSite<...>('<kind>', `, the sites.
 */
function modulesNamedByUrl(prefix = ''): string[] {
  const found = new Set<string>();
  const pattern = new RegExp(`${prefix}new URL\\('(\\.{1,2}/[^']+)\\.js', import\\.meta\\.url\\)`, 'g');
  // src/build/ runs at build time only (and this file's own comments would match).
  const runtimeSources = [...sourceFiles('actors'), ...sourceFiles('src'), ...sourceFiles('benchmarks')].filter(
    (file) => !file.startsWith(join(root, 'src/build/')),
  );
  for (const file of runtimeSources) {
    for (const match of readFileSync(file, 'utf8').matchAll(pattern)) {
      found.add(resolve(dirname(file), `${match[1]}.ts`));
    }
  }
  return [...found];
}

const onlyTopLevel = (dir: string) => sourceFiles(dir).filter((file) => dirname(file) === join(root, dir));

/**
 * zod's `z.locales` namespace holds its error messages in 60-odd languages (370 KB of the 780 KB
 * zod brings): a namespace export keeps them all in the bundle, and every process and thread that
 * checks a config compiled them at start. outpost's messages are English (zod's default, which its
 * schemas load themselves) and nothing reads `z.locales`: the bundles get English alone.
 */
const englishZodOnly: Plugin = {
  name: 'english-zod-only',
  setup(builder) {
    builder.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) => {
      if (!args.importer.includes('/node_modules/zod/')) return undefined;
      return { path: join(dirname(args.importer), '../locales/index.js'), namespace: 'english-zod-only' };
    });
    builder.onLoad({ filter: /.*/, namespace: 'english-zod-only' }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(join(dirname(args.path), 'en.js'))};`,
      loader: 'js',
      resolveDir: dirname(args.path),
    }));
  },
};

/** Gives each module its own URL in dist/ where it reads `import.meta.url`. */
const ownImportMetaUrl: Plugin = {
  name: 'own-import-meta-url',
  setup(builder) {
    builder.onLoad({ filter: /\.ts$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      if (args.path.includes('/node_modules/') || !source.includes('import.meta.url')) return { contents: source, loader: 'ts' };
      const inDist = relative(root, args.path).replace(/\.ts$/, '.js');
      return { contents: source.replaceAll('import.meta.url', `new URL(${JSON.stringify(inDist)}, outpostDist).href`), loader: 'ts' };
    });
  },
};

/**
 * The modules one thread loads beside its entry: the http front's thread imports each site it serves
 * (src/http/site.ts, by the URL a `declareSite` names). They are built with code splitting, so the
 * thread holds one copy of each module they share (the logger's link to the supervisor, the metrics
 * registries), as unbundled modules are. Every other bundle is alone in its thread or process and is
 * built on its own: an ES module costs Node's loader a few milliseconds in each thread that loads it, and
 * the 20-30 shared chunks one split build of everything gives each thread cost `certhub run --demo`
 * about 75 ms of CPU at each start (650 against 570 ms) and `outpost demo` about 290 (1,740 against
 * 1,450 ms): medians of 7 and 5 starts, the two builds taking turns, on a quiet 2-core machine.
 */
function modulesSharingAThread(): string[] {
  return [join(root, 'actors/http-front/index.ts'), ...modulesNamedByUrl("declareSite<\\w+>\\('[\\w-]+', ")];
}

export async function bundle(): Promise<number> {
  const entryPoints = [...new Set([...onlyTopLevel('bin'), ...onlyTopLevel('benchmarks/hosts'), ...modulesNamedByUrl()])];
  const sharing = new Set(modulesSharingAThread());
  rmSync(join(outRoot, '_chunks'), { recursive: true, force: true });
  const options = {
    outdir: outRoot,
    outbase: root,
    allowOverwrite: true,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external,
    // Names stay as written: error names and class names show up in logs.
    keepNames: true,
    // No source maps: a stack trace names the bundle or chunk, where a comment above each module
    // names its source file. Where --enable-source-maps is on (ava's workers, and the threads of
    // the supervisors they run), parsing the maps cost about 300 ms of CPU per `outpost demo` start.
    sourcemap: false,
    banner: {
      js: [
        bundleMarker,
        // The packages bundled in CommonJS form call require.
        "import { createRequire as outpostCreateRequire } from 'node:module';",
        'const require = outpostCreateRequire(import.meta.url);',
        // dist/ itself: every bundle and chunk lies in it, and nothing under it is called dist.
        "const outpostDist = import.meta.url.slice(0, import.meta.url.lastIndexOf('/dist/') + '/dist/'.length);",
      ].join('\n'),
    },
    plugins: [englishZodOnly, ownImportMetaUrl],
    logLevel: 'warning',
  } satisfies BuildOptions;
  const splitBuild = (entries: string[]) => build({ ...options, entryPoints: entries, splitting: true, chunkNames: '_chunks/[name]-[hash]' });
  await Promise.all([...entryPoints.filter((entry) => !sharing.has(entry)).map((entry) => splitBuild([entry])), splitBuild([...sharing])]);
  return entryPoints.length;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(`dist: ${await bundle()} bundles`);
}
