// Build step: bundles every role's page, actors/<role>/ui/ (index.html + main.ts + style.css), with
// esbuild into dist/ui/<role>/, names bundles `[name]-[hash]` so fronts can let browsers cache them forever, and
// points index.html at the hashed names.
import { build } from 'esbuild';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageRoot } from '../version.js';

const root = fileURLToPath(packageRoot);
const actorsRoot = join(root, 'actors');
const outRoot = join(root, 'dist/ui');

const pages = readdirSync(actorsRoot, { withFileTypes: true }).filter(
  (entry) => entry.isDirectory() && existsSync(join(actorsRoot, entry.name, 'ui', 'index.html')),
);

for (const page of pages) {
  const source = join(actorsRoot, page.name, 'ui');
  const out = join(outRoot, page.name);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const entryPoints = ['main.ts', 'style.css'].map((file) => join(source, file)).filter((file) => existsSync(file));
  const result = await build({
    entryPoints,
    outdir: out,
    bundle: true,
    minify: true,
    sourcemap: true,
    format: 'esm',
    target: ['es2022', 'chrome110', 'firefox110', 'safari16'],
    entryNames: '[name]-[hash]',
    metafile: true,
    logLevel: 'warning',
  });
  let html = readFileSync(join(source, 'index.html'), 'utf8');
  for (const [output, meta] of Object.entries(result.metafile.outputs)) {
    if (meta.entryPoint === undefined) continue;
    const from = `./${basename(meta.entryPoint)}`;
    const to = `./${relative(out, join(root, output))}`;
    if (!html.includes(from)) throw new Error(`actors/${page.name}/ui/index.html does not reference ${from}`);
    html = html.replaceAll(from, to);
  }
  writeFileSync(join(out, 'index.html'), html);
  for (const file of readdirSync(source)) {
    // Other assets (icons, a web manifest) are copied as they are.
    if (!/\.(ts|css|html|json|md)$/.test(file)) writeFileSync(join(out, file), readFileSync(join(source, file)));
  }
  console.log(`dist/ui/${page.name}: ${Object.keys(result.metafile.outputs).length} files`);
}
