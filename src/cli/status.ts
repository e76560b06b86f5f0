// `outpost status`: asks a running supervisor over its control socket (src/actor/control-socket.ts)
// which roles and actors it runs, and prints them for a person or, with --json, for a script.
import { existsSync } from 'node:fs';
import type { SupervisorStatus } from '../actor/actor-status.js';
import { askStatus, defaultControlSocket } from '../actor/control-socket.js';
import { supervisorSchema } from '../config/host.js';
import { loadConfigFile } from '../config/load.js';
import { z } from 'zod';
import { OutpostError } from '../errors.js';

export interface StatusOptions {
  socket?: string;
  config?: string;
  json?: boolean;
}

/** The one part of a host config `status` reads; the roles are the running process's business. */
const socketOfHostConfig = z.object({ supervisor: supervisorSchema.default(supervisorSchema.parse({})) });

/** Where the shipped outpost.service listens (RuntimeDirectory=outpost), seen from an administrator's shell. */
const serviceSocket = '/run/outpost/control.sock';

/** The socket to ask: --socket, else the one the host config names, else the default, else the service's. */
export async function statusSocket(options: StatusOptions): Promise<string> {
  if (options.socket !== undefined) return options.socket;
  if (options.config !== undefined) return (await loadConfigFile(socketOfHostConfig, options.config)).supervisor.control_socket ?? defaultControlSocket();
  const socket = defaultControlSocket();
  return !existsSync(socket) && existsSync(serviceSocket) ? serviceSocket : socket;
}

export async function printStatus(options: StatusOptions): Promise<void> {
  const socket = await statusSocket(options);
  let status: SupervisorStatus;
  try {
    status = await askStatus(socket);
  } catch (error) {
    throw new OutpostError(
      'ERR_UNAVAILABLE',
      `no running outpost answers on ${socket} (${(error as Error).message}); give --socket or -c with the host config it runs`,
    );
  }
  process.stdout.write(options.json === true ? `${JSON.stringify(status, null, 2)}\n` : formatStatus(status));
}

export function formatStatus(status: SupervisorStatus): string {
  const lines = [`outpost pid ${status.pid}, started ${status.startedAt}`];
  const width = Math.max(...status.roles.flatMap((role) => role.actors.map((actor) => actor.name.length)), 10);
  for (const role of status.roles) {
    lines.push(`${role.name}: ${role.ready ? 'ready' : 'not ready'}`);
    for (const actor of role.actors) {
      const uptime = actor.uptimeSeconds === undefined ? '-' : formatSeconds(actor.uptimeSeconds);
      const extra = [...(actor.urls ?? []), ...(actor.notReady === undefined ? [] : [`not ready: ${actor.notReady}`])].join(' ');
      lines.push(
        `  ${actor.name.padEnd(width)}  ${actor.state.padEnd(8)}  restarts ${String(actor.restarts).padStart(3)}  up ${uptime.padStart(8)}${extra === '' ? '' : `  ${extra}`}`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}

function formatSeconds(seconds: number): string {
  if (seconds < 120) return `${seconds.toFixed(1)}s`;
  if (seconds < 7200) return `${Math.floor(seconds / 60)}m${String(Math.floor(seconds % 60)).padStart(2, '0')}s`;
  return `${Math.floor(seconds / 3600)}h${String(Math.floor((seconds % 3600) / 60)).padStart(2, '0')}m`;
}
