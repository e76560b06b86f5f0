import type { ExecutionContext } from 'ava';
import { projectPath, startProcess, type RunningProcess } from './process.js';

export interface NetspeedServer extends RunningProcess {
  url: string;
}

/** Starts the real `netspeed server` on a free loopback port (or as `prefix` says, e.g. inside a namespace). */
export async function startNetspeedServer(t: ExecutionContext, args: string[] = [], prefix: string[] = []): Promise<NetspeedServer> {
  const command = [...prefix, process.execPath, projectPath('dist/bin/netspeed.js'), 'server', ...args];
  const running = startProcess(t, command[0]!, command.slice(1));
  const [url] = await running.waitFor(/^http:\/\/\S+\/$/m);
  return { ...running, url };
}
