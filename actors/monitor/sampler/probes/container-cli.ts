// Container processes through docker's or podman's CLI. The CLI is looked up on PATH (no shell);
// when none is there, or the engine does not answer, the status says why instead of failing.
import { execFile } from 'node:child_process';
import { access, constants } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { childEnvironment } from '../../../../src/process/child-environment.js';
import { parsePsJsonLines, parseTop, withoutArguments, type ContainerSummary, type ContainerTopEntry } from '../containers.js';
import type { ContainerRuntimeStatus } from '../protocol.js';

const run = promisify(execFile);

export interface ContainerProcessEntry extends ContainerTopEntry {
  container: string;
  image: string;
}

export interface ContainerReading {
  status: ContainerRuntimeStatus;
  processes: ContainerProcessEntry[];
}

const runtimes = ['docker', 'podman'] as const;

export interface ContainerCliOptions {
  /** Keep the arguments of each process's command line; without, only its program is read. */
  showArguments: boolean;
  /** Where the runtime's CLI is looked for. */
  pathVariable?: string;
}

/** What tells docker and podman which engine to ask and as whom (a rootless podman finds its socket under XDG_RUNTIME_DIR). */
const engineVariables = [
  'DOCKER_HOST',
  'DOCKER_CONTEXT',
  'DOCKER_CONFIG',
  'DOCKER_CERT_PATH',
  'DOCKER_TLS_VERIFY',
  'CONTAINER_HOST',
  'CONTAINER_CONNECTION',
  'CONTAINERS_CONF',
  'XDG_RUNTIME_DIR',
  'XDG_CONFIG_HOME',
];

export class ContainerCli {
  private readonly pathVariable: string;

  constructor(private readonly options: ContainerCliOptions) {
    this.pathVariable = options.pathVariable ?? process.env.PATH ?? '';
  }

  async read(): Promise<ContainerReading> {
    const found = await this.findRuntime();
    if (found === undefined) return { status: { available: false, reason: 'no container runtime CLI (docker or podman) found on PATH' }, processes: [] };
    let containers: ContainerSummary[];
    let version: string;
    try {
      version = /(\d+\.\d+(\.\d+)?)/.exec(await this.call(found.path, ['--version']))?.[1] ?? '';
      containers = parsePsJsonLines(await this.call(found.path, ['ps', '--format', '{{json .}}']));
    } catch (error) {
      return { status: { available: false, reason: `${found.name} does not answer: ${firstLine(error)}` }, processes: [] };
    }
    const processes: ContainerProcessEntry[] = [];
    for (const container of containers) {
      try {
        for (const entry of parseTop(await this.call(found.path, ['top', container.id]))) {
          processes.push({
            ...entry,
            command: this.options.showArguments ? entry.command : withoutArguments(entry.command),
            container: container.name,
            image: container.image,
          });
        }
      } catch {
        // The container stopped between ps and top; it is gone from the next reading.
      }
    }
    return { status: { available: true, name: found.name, version }, processes };
  }

  private async findRuntime(): Promise<{ name: (typeof runtimes)[number]; path: string } | undefined> {
    for (const name of runtimes) {
      for (const dir of this.pathVariable.split(delimiter)) {
        if (dir === '') continue;
        const path = join(dir, name);
        if (
          await access(path, constants.X_OK).then(
            () => true,
            () => false,
          )
        )
          return { name, path };
      }
    }
    return undefined;
  }

  private async call(path: string, args: string[]): Promise<string> {
    return (await run(path, args, { timeout: 5000, maxBuffer: 4 << 20, env: childEnvironment({ pass: engineVariables }) })).stdout;
  }
}

function firstLine(error: unknown): string {
  const stderr = (error as { stderr?: unknown }).stderr;
  const text = typeof stderr === 'string' && stderr.trim() !== '' ? stderr : error instanceof Error ? error.message : String(error);
  return text.trim().split('\n')[0] ?? '';
}
