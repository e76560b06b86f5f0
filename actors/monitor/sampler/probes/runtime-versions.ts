// Interpreter versions for the runtime tags. The path often states it (pyenv, nvm, python3.11);
// otherwise the interpreter is asked, but only one that root owns and nobody else may write:
// hostwatch may run as root, and running a binary another user controls would hand them root.
import { execFile } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { promisify } from 'node:util';
import { versionFromOutput, versionFromPath } from '../process-names.js';

const run = promisify(execFile);

const versionArguments: Record<string, string[]> = {
  python: ['--version'],
  node: ['--version'],
  ruby: ['--version'],
  perl: ['--version'],
  java: ['-version'],
};

export class RuntimeVersions {
  private readonly known = new Map<string, string>();
  private readonly asking = new Set<string>();

  /** The version if known now; '' while it is being found out (the next snapshot has it). */
  versionOf(runtime: string, exe: string): string {
    const cached = this.known.get(exe);
    if (cached !== undefined) return cached;
    const fromPath = exe === process.execPath ? process.versions.node : versionFromPath(exe);
    // A full version in the path (pyenv, nvm) is the answer; `python3.11` is only part of one.
    if (/^\d+\.\d+\.\d+$/.test(fromPath) || exe === '') {
      this.known.set(exe, fromPath);
      return fromPath;
    }
    if (!this.asking.has(exe)) {
      this.asking.add(exe);
      void this.ask(runtime, exe).then((version) => {
        this.known.set(exe, version === '' ? fromPath : version);
        this.asking.delete(exe);
      });
    }
    return fromPath;
  }

  private async ask(runtime: string, exe: string): Promise<string> {
    try {
      const info = await stat(exe);
      if (info.uid !== 0 || (info.mode & 0o022) !== 0) return '';
      const { stdout, stderr } = await run(exe, versionArguments[runtime] ?? ['--version'], { timeout: 3000, env: {} });
      return versionFromOutput(`${stdout}\n${stderr}`);
    } catch {
      return '';
    }
  }
}
