// nginx (Debian's package) started by a benchmark with a configuration of its own, in a folder of its
// own, on a free loopback port, in the foreground; its CPU time is its master's and workers'.
import { spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { connect as netConnect } from 'node:net';
import { connect } from 'node:tls';
import { reservePort } from '../../src/http/port.js';
import { stopChild } from '../harness.js';
import { processTreeCpuSeconds } from '../measure/proc-stat.js';

export interface Listener {
  port: number;
  /** CPU seconds the server's processes have used so far. */
  cpuSeconds(): number;
  stop(): Promise<void>;
}

export interface NginxSetup {
  /** The folder its configuration, pid file, logs and temporary files go in: `DIR/nginx-NAME`. */
  dir: string;
  name: string;
  workers: number;
  /** The server block's body; PORT stands for the port it listens on. */
  server: string;
  /** Directives beside the server block, in `http`. */
  http?: string;
  /** The name a TLS listener is asked for (SNI) while it starts. */
  servername?: string;
}

/** Resolves once nginx accepts connections (completes a TLS handshake, for a listener with ` ssl;`). */
export async function startNginx({ dir, name, workers, server, http = '', servername = 'localhost' }: NginxSetup): Promise<Listener> {
  const prefix = join(dir, `nginx-${name}`);
  await mkdir(prefix, { recursive: true });
  const port = await reservePort('127.0.0.1');
  const conf = join(prefix, 'nginx.conf');
  await writeFile(
    conf,
    `worker_processes ${workers};
daemon off;
pid ${prefix}/nginx.pid;
error_log ${prefix}/error.log;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${prefix}/body; proxy_temp_path ${prefix}/proxy; fastcgi_temp_path ${prefix}/fastcgi; uwsgi_temp_path ${prefix}/uwsgi; scgi_temp_path ${prefix}/scgi;
  ${http}
  server { ${server.replace('PORT', String(port))} }
}
`,
  );
  const child = spawn('nginx', ['-c', conf, '-p', prefix], { stdio: ['ignore', 'inherit', 'inherit'] });
  const tls = server.includes(' ssl;');
  const deadline = performance.now() + 10_000;
  while (!(await (tls ? handshakes(port, servername) : accepts(port)))) {
    if (child.exitCode !== null || performance.now() > deadline) throw new Error(`nginx did not start; see ${prefix}/error.log`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { port, cpuSeconds: () => processTreeCpuSeconds(child.pid!), stop: () => stopChild(child) };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = netConnect({ host: '127.0.0.1', port }, () => {
      socket.end();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function handshakes(port: number, servername: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, servername, rejectUnauthorized: false }, () => {
      socket.end();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
