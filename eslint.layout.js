// The layout rule (ARCHITECTURE.md): src/ is mechanism and imports no role; a role imports another
// role only through that role's entry file, actors/<role>/index.ts. Imports are resolved against the
// importing file, so `../../actors/cert/domains/names.js` and a bare `actors/...` string are caught alike.
import { dirname, join, relative, sep } from 'node:path';

/** Folders under actors/ that are not roles: anyone may import them as a whole. */
const sharedActorFolders = new Set(['http-front']);

/**
 * The build step that writes docs/reference/ from every role's schemas, programs and OpenAPI
 * documents: it runs at build time only, and nothing imports it.
 */
const readsEveryRole = new Set(['actors/reference-docs.ts']);

function check(root, file, specifier) {
  if (!specifier.startsWith('.')) return undefined;
  const from = relative(root, file).split(sep).join('/');
  const to = relative(root, join(dirname(file), specifier)).split(sep).join('/');
  if (!to.startsWith('actors/')) return undefined;
  if (readsEveryRole.has(from)) return undefined;
  if (from.startsWith('src/')) return `src/ is shared mechanism and imports no role: ${from} imports ${to}`;
  if (!from.startsWith('actors/')) return undefined;
  const [, targetRole, ...rest] = to.split('/');
  const [, ownRole] = from.split('/');
  if (targetRole === ownRole || sharedActorFolders.has(targetRole) || rest.length === 0) return undefined;
  if (rest.join('/') === 'index.js' || rest.join('/') === 'index.ts') return undefined;
  return `a role imports another role only through its index.ts: ${from} imports ${to} (use actors/${targetRole}/index.js)`;
}

export const layoutPlugin = {
  rules: {
    imports: {
      meta: { type: 'problem', schema: [], docs: { description: 'src/ imports no role; roles import each other through index.ts' } },
      create(context) {
        const root = context.cwd;
        const report = (node) => {
          const source = node.source;
          if (source?.type !== 'Literal' || typeof source.value !== 'string') return;
          const message = check(root, context.filename, source.value);
          if (message !== undefined) context.report({ node: source, message });
        };
        return { ImportDeclaration: report, ExportNamedDeclaration: report, ExportAllDeclaration: report, ImportExpression: report };
      },
    },
  },
};

/** The flat-config block that turns the rule on. */
export const layoutConfig = { files: ['**/*.ts'], plugins: { layout: layoutPlugin }, rules: { 'layout/imports': 'error' } };
