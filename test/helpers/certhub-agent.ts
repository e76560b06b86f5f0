// certhub-agent as a user runs it, against a real certhub: a domain added and issued through the
// admin API, the agent run to its end or kept running (--watch), and the files it wrote as they are.
import { readFile, stat } from 'node:fs/promises';
import type { ExecutionContext } from 'ava';
import { materialPaths } from '../../actors/proxy/client/material-files.js';
import type { RunningCerthub } from './certhub.js';
import { eventually } from './fixture-host.js';
import { projectPath, runToEnd, startProcess, type RunningProcess } from './process.js';

export const agentBin = projectPath('dist/bin/certhub-agent.js');

export function runAgent(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runToEnd(process.execPath, [agentBin, ...args]);
}

export function startAgent(t: ExecutionContext, args: readonly string[]): RunningProcess {
  return startProcess(t, process.execPath, [agentBin, ...args]);
}

export interface IssuedDomain {
  name: string;
  token: string;
}

/** Adds `label` and waits until its certificate is issued (`timeoutMs`: demo certificates come at once, ACME ones not). */
export async function addIssuedDomain(server: RunningCerthub, label: string, timeoutMs = 15_000): Promise<IssuedDomain> {
  const added = await server.admin('api/admin/domains', { method: 'POST', body: { name: label, target: '203.0.113.5' } });
  if (added.status !== 201) throw new Error(`adding ${label}: HTTP ${added.status} ${await added.text()}`);
  const domain = (await added.json()) as IssuedDomain & { status: string };
  let last = '';
  const issued = await eventually(
    async () => {
      const view = (await (await server.admin(`api/admin/domains/${label}`)).json()) as { status: string; error: string | null };
      last = `${view.status} ${view.error ?? ''}`;
      return view.status === 'issued';
    },
    timeoutMs,
    100,
  );
  if (!issued) throw new Error(`${label} was not issued within ${timeoutMs} ms (last: ${last})`);
  return { name: domain.name, token: domain.token };
}

/** The new token of `label` after a rotation. */
export async function rotateToken(server: RunningCerthub, label: string): Promise<string> {
  return ((await (await server.admin(`api/admin/domains/${label}/rotate`, { method: 'POST' })).json()) as IssuedDomain).token;
}

export interface FileState {
  content: string;
  mode: number;
  /** Modification time and inode: a rewrite with the same content still changes them. */
  mtimeNs: bigint;
  ino: bigint;
}

/** Every file of a domain's material, to compare before and after. */
export async function materialState(dir: string, domain: string): Promise<Record<'cert' | 'chain' | 'fullchain' | 'key', FileState> & { folderMode: number }> {
  const paths = materialPaths(dir, domain);
  const one = async (path: string): Promise<FileState> => {
    const info = await stat(path, { bigint: true });
    return { content: await readFile(path, 'utf8'), mode: Number(info.mode & 0o777n), mtimeNs: info.mtimeNs, ino: info.ino };
  };
  const [cert, chain, fullchain, key] = await Promise.all([one(paths.cert), one(paths.chain), one(paths.fullchain), one(paths.key)]);
  return { cert, chain, fullchain, key, folderMode: Number((await stat(paths.folder, { bigint: true })).mode & 0o777n) };
}
