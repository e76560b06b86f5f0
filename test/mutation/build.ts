// The build of a mutation run (Stryker's `buildCommand`, run once per run in its sandbox): the given
// test files and every module they import, transpiled by esbuild from the sandbox's sources (the
// mutated ones included) into the sandbox's dist/, each where tsc would write it, so that every
// relative path and `import.meta.url` stays as in `npm run build`'s output. Nothing is type-checked
// or bundled: it takes seconds.
//
// Usage: node dist/test/mutation/build.js dist/test/unit/NAME.test.js...
import { build } from 'esbuild';

/** `dist/test/unit/x.test.js` -> `test/unit/x.test.ts`. */
const entries = process.argv.slice(2).map((compiled) => compiled.replace(/^dist\//, '').replace(/\.js$/, '.ts'));
if (entries.length === 0) throw new Error('usage: node dist/test/mutation/build.js dist/test/unit/NAME.test.js...');

// The sources the entries import, themselves included: what a bundle of them would read.
const { metafile } = await build({
  entryPoints: entries,
  bundle: true,
  write: false,
  metafile: true,
  platform: 'node',
  format: 'esm',
  packages: 'external',
  outdir: 'dist',
  logLevel: 'error',
});
const sources = Object.keys(metafile.inputs).filter((input) => input.endsWith('.ts'));
await build({ entryPoints: sources, outbase: '.', outdir: 'dist', platform: 'node', format: 'esm', sourcemap: 'inline', logLevel: 'error' });
console.log(`mutation build: ${sources.length} modules into dist/`);
