// What a person calls a process: the program for a binary, the script or module for an interpreter
// (`python worker.py` is "worker.py", `node /srv/app/node_modules/vite/bin/vite.js` is "vite"), and
// for a multiprocessing worker, the program that started it.

export interface ProcessFacts {
  pid: number;
  ppid: number;
  /** The kernel's short name (15 characters at most on Linux). */
  comm: string;
  /** Path of the executable; empty when it cannot be read. */
  exe: string;
  argv: readonly string[];
}

export interface ProcessIdentity {
  name: string;
  /** `python`, `node`, `ruby`, `perl`, `java`, or null for anything else. */
  runtime: string | null;
}

const interpreters: readonly [string, RegExp][] = [
  ['python', /^(python|pypy)(\d+(\.\d+)*)?$/],
  ['node', /^(node|nodejs)$/],
  ['ruby', /^ruby(\d+(\.\d+)*)?$/],
  ['perl', /^perl(\d+(\.\d+)*)?$/],
  ['java', /^java$/],
];

// Options that take the next argument as their value, per interpreter: skipping them finds the script.
const optionsWithValue: Record<string, ReadonlySet<string>> = {
  python: new Set(['-W', '-X', '-Q']),
  node: new Set([
    '-r',
    '--require',
    '--import',
    '--loader',
    '--experimental-loader',
    '-C',
    '--conditions',
    '--input-type',
    '--title',
    '--env-file',
    '--inspect-port',
  ]),
  ruby: new Set(['-I', '-r', '-C', '-E', '-F']),
  perl: new Set(['-I', '-M', '-m']),
  java: new Set(['-cp', '-classpath', '--class-path', '-p', '--module-path', '--add-modules', '--add-opens', '--add-exports']),
};

export function baseName(path: string): string {
  const cleaned = path.replace(/ \(deleted\)$/, '').replace(/\/+$/, '');
  return cleaned.slice(cleaned.lastIndexOf('/') + 1);
}

/** The interpreter a process runs, judged by its executable, else by argv[0]. */
export function interpreterOf(facts: Pick<ProcessFacts, 'exe' | 'argv' | 'comm'>): string | null {
  const candidates = [baseName(facts.exe), baseName(facts.argv[0] ?? ''), facts.comm];
  for (const candidate of candidates) {
    for (const [name, pattern] of interpreters) if (pattern.test(candidate)) return name;
  }
  return null;
}

/**
 * Names one process; `parent` resolves workers that carry no script of their own. A worker takes its
 * parent's name only when the parent runs the same interpreter (the program that started it, or a
 * forkserver named after that program); past it lies whatever started the program (a shell, PID 1),
 * so a worker without such a parent is named after its binary.
 */
export function identify(facts: ProcessFacts, parent?: ProcessIdentity): ProcessIdentity {
  const runtime = interpreterOf(facts);
  if (runtime === null) return { name: programName(facts), runtime: null };
  const target = scriptOf(runtime, facts.argv.slice(1));
  if (target.kind === 'worker') return { name: parent?.runtime === runtime ? parent.name : programName(facts), runtime };
  return { name: target.kind === 'script' && target.name !== '' ? target.name : runtime, runtime };
}

function programName(facts: ProcessFacts): string {
  // An executable run from an anonymous memory file (Chromium's zygote) has no useful path.
  if (facts.exe !== '' && !baseName(facts.exe).startsWith('memfd:')) return baseName(facts.exe);
  const first = facts.argv[0];
  // A process that rewrote its title ("nginx: worker process") keeps its real name in comm.
  if (first !== undefined && first !== '' && !first.includes(' ')) return baseName(first);
  return facts.comm;
}

// The code multiprocessing runs a helper with (`from multiprocessing.resource_tracker import main;main(4)`,
// the forkserver, spawn_main); a program's own `-c` code that merely uses multiprocessing is a program.
const multiprocessingBootstrap = /^\s*from multiprocessing\.[\w.]+ import /;

type ScriptTarget = { kind: 'script'; name: string } | { kind: 'worker' } | { kind: 'none' };

function scriptOf(runtime: string, args: readonly string[]): ScriptTarget {
  const withValue = optionsWithValue[runtime] ?? new Set<string>();
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    const next = args[index + 1];
    if (runtime === 'python' && (arg === '-c' || arg === '-m')) {
      if (arg === '-c' && (args.includes('--multiprocessing-fork') || multiprocessingBootstrap.test(next ?? ''))) return { kind: 'worker' };
      return arg === '-m' && next !== undefined ? { kind: 'script', name: next } : { kind: 'script', name: 'python -c' };
    }
    if (runtime === 'node' && ['-e', '--eval', '-p', '--print'].includes(arg)) return { kind: 'script', name: 'node -e' };
    if ((runtime === 'ruby' || runtime === 'perl') && arg === '-e') return { kind: 'script', name: `${runtime} -e` };
    if (runtime === 'java' && (arg === '-jar' || arg === '-m' || arg === '--module')) {
      return next === undefined ? { kind: 'none' } : { kind: 'script', name: arg === '-jar' ? baseName(next) : next.split('/')[0]! };
    }
    if (withValue.has(arg)) {
      index++;
      continue;
    }
    if (arg.startsWith('-')) continue;
    if (runtime === 'java') return { kind: 'script', name: arg.slice(arg.lastIndexOf('.') + 1) };
    return { kind: 'script', name: scriptName(arg) };
  }
  return { kind: 'none' };
}

/** A script's name; a package's entry file is named after its package (node_modules/vite/bin/vite.js is "vite"). */
function scriptName(path: string): string {
  // node_modules/.bin holds links named after the tool, not a package.
  const packages = [...path.matchAll(/node_modules\/((?:@[^/]+\/)?[^/.][^/]*)\//g)];
  const lastPackage = packages.at(-1)?.[1];
  return lastPackage ?? baseName(path);
}

/** A version that the executable's path states (`python3.11`, `.../versions/3.11.7/bin/python`, `node-v22.1.0`). */
export function versionFromPath(exe: string): string {
  const fromDirectory = /[/-]v?(\d+\.\d+\.\d+)(?=[-/])/.exec(exe);
  if (fromDirectory !== null) return fromDirectory[1]!;
  return /(\d+\.\d+(?:\.\d+)?)$/.exec(baseName(exe))?.[1] ?? '';
}

/** The version an interpreter prints about itself (`python --version`, `java -version`, ...). */
export function versionFromOutput(output: string): string {
  return /(\d+\.\d+(?:\.\d+)?)/.exec(output)?.[1] ?? '';
}
