// The environment of every program outpost starts (diode commands, reload commands, the container
// CLI, probes): named variables only, never a copy of our own. Our environment may hold secrets
// (a pool passphrase, tokens a service manager set), and a child passes what it gets on to its own
// children, into core dumps and into /proc/<pid>/environ, which its own user may read.

/** What any program needs to find programs, files and the locale, and nothing that names a secret. */
const commonNames = ['PATH', 'HOME', 'USER', 'LOGNAME', 'LANG', 'LANGUAGE', 'TZ', 'TMPDIR'];

/**
 * An environment for a child program: the common variables (PATH, HOME, the locale, TZ) and those in
 * `pass` as far as ours has them, then `set`. Nothing else of ours reaches the child.
 */
export function childEnvironment(
  options: { pass?: readonly string[]; set?: Readonly<Record<string, string>> } = {},
  from: NodeJS.ProcessEnv = process.env,
): NodeJS.ProcessEnv {
  const names = new Set([...commonNames, ...(options.pass ?? [])]);
  const environment: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(from)) {
    if (value !== undefined && (names.has(name) || name.startsWith('LC_'))) environment[name] = value;
  }
  return { ...environment, ...options.set };
}
