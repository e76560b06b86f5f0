// A real `certhub run` on a free loopback port, with a data directory made for the test.
import { mkdir, writeFile } from 'node:fs/promises';
import type { IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import type { ExecutionContext } from 'ava';
import { projectPath, startProcess, type RunningProcess } from './process.js';
import { tempDir } from './qpool.js';

export const certhubBin = projectPath('dist/bin/certhub.js');
export const testAdminKey = 'cha_test-admin-key-0123456789abcdef';

export interface RunningCerthub extends RunningProcess {
  url: string;
  dataDir: string;
  /** fetch with the admin key, JSON body when given. */
  admin(path: string, init?: { method?: string; body?: unknown }): Promise<Response>;
}

/** Writes a config.json for base domain `example.test` (more keys from `extra`) into a new data directory. */
export async function certhubDataDir(t: ExecutionContext, extra: object = {}): Promise<string> {
  const dir = await tempDir(t, 'certhub-');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await writeFile(join(dir, 'config.json'), JSON.stringify({ base_domain: 'example.test', admin_key: testAdminKey, ...extra }), { mode: 0o600 });
  return dir;
}

export async function startCerthub(t: ExecutionContext, dataDir: string, args: string[] = ['--demo'], env: NodeJS.ProcessEnv = {}): Promise<RunningCerthub> {
  const running = startProcess(t, process.execPath, [certhubBin, 'run', '-d', dataDir, '-H', '127.0.0.1', '-p', '0', ...args], env);
  // A bound on a hang: on a loaded machine an actor may miss its ready deadline and be restarted first.
  const [url] = await running.waitFor(/^https?:\/\/127\.0\.0\.1:\d+\/$/m, 60_000);
  return {
    ...running,
    url,
    dataDir,
    admin: (path, init = {}) =>
      fetch(`${url}${path}`, {
        method: init.method ?? 'GET',
        headers: { authorization: `Bearer ${testAdminKey}`, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      }),
  };
}

/** The admin key and the certificate fingerprint a `certhub run` off loopback printed. */
export async function startCerthubOffLoopback(
  t: ExecutionContext,
  dataDir: string,
  args: string[] = ['--demo'],
): Promise<RunningCerthub & { pin: string | undefined }> {
  // Bound to every interface (the default bind); the test talks to it on 127.0.0.1 only.
  const server = await startCerthub(t, dataDir, [...args, '-H', '0.0.0.0']);
  await server.waitFor(/^admin key: /m);
  return { ...server, pin: /^certificate: (sha256:[0-9a-f]{64}) /m.exec(server.stdout())?.[1] };
}

/** A request to certhub over HTTPS trusting only `caPem` (its self-signed certificate), for `servername`. */
export function requestTrusting(
  url: string,
  caPem: string,
  servername: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; body: string; headers: IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const call = httpsRequest(url, { method: init.method ?? 'GET', ca: caPem, servername, headers: init.headers ?? {} }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body, headers: response.headers }));
    });
    call.on('error', reject);
    call.end(init.body);
  });
}
