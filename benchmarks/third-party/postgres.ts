// A PostgreSQL cluster of its own for one test or benchmark: `initdb` into a temporary folder, then the
// server in the foreground on a free loopback port, its socket in that folder. PostgreSQL refuses to
// run as root, so as root both run as the `postgres` user (Debian's package creates it) and the folder
// is handed to that user. Password authentication (SCRAM) on TCP, as a production server has it; the
// URL carries the password.
import { execFile } from 'node:child_process';
import { chown, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { randomBytes } from 'node:crypto';
import { reservePort } from '../../src/http/port.js';
import { onFreshPorts, startDaemon, waitForDaemon, type Daemon } from './daemon.js';

const run = promisify(execFile);

/** Debian's layout: the binaries of one major version under /usr/lib/postgresql/<major>/bin. */
export const postgresBin =
  ['17', '16', '15'].map((major) => `/usr/lib/postgresql/${major}/bin`).find((dir) => existsSync(join(dir, 'postgres'))) ?? '/usr/lib/postgresql/15/bin';

export interface PostgresServer {
  /** `postgres://outpost:<password>@127.0.0.1:<port>/outpost`. */
  url: string;
  port: number;
  output(): string;
  /** Stops the server (fast shutdown); `start` brings it back on the same port and data. */
  halt(): Promise<void>;
  /** Ends the server at once with SIGKILL, as a crash would; `start` recovers it. */
  kill(): Promise<void>;
  start(): Promise<void>;
  /** Stops the server and removes its folder. */
  stop(): Promise<void>;
}

export function startPostgres(): Promise<PostgresServer> {
  return onFreshPorts(startPostgresOnce);
}

async function startPostgresOnce(): Promise<PostgresServer> {
  const dir = await mkdtemp(join(tmpdir(), 'outpost-postgres-'));
  const asRoot = userInfo().uid === 0;
  const owner = asRoot ? await postgresUser() : undefined;
  const asOwner = (command: string, args: readonly string[]): [string, string[]] =>
    owner === undefined ? [command, [...args]] : ['runuser', ['-u', 'postgres', '--', command, ...args]];
  let daemon: Daemon | undefined;
  try {
    const password = randomBytes(18).toString('base64url');
    const dataDir = join(dir, 'data');
    await writeFile(join(dir, 'password'), password, { mode: 0o600 });
    if (owner !== undefined) await chown(dir, owner.uid, owner.gid);
    if (owner !== undefined) await chown(join(dir, 'password'), owner.uid, owner.gid);
    const [initCommand, initArgs] = asOwner(join(postgresBin, 'initdb'), [
      '-D',
      dataDir,
      '-U',
      'outpost',
      '--pwfile',
      join(dir, 'password'),
      '--auth-local=scram-sha-256',
      '--auth-host=scram-sha-256',
      '--encoding=UTF8',
      '--locale=C',
      '--no-sync',
    ]);
    await run(initCommand, initArgs);
    const port = await reservePort('127.0.0.1');
    const [command, args] = asOwner(join(postgresBin, 'postgres'), [
      '-D',
      dataDir,
      '-p',
      String(port),
      '-k',
      dir,
      '-c',
      'listen_addresses=127.0.0.1',
      // A test cluster: durability across a power cut is not what it tests, and fsync costs seconds.
      '-c',
      'fsync=off',
      '-c',
      'max_connections=200',
    ]);
    const url = `postgres://outpost:${password}@127.0.0.1:${port}/postgres`;
    const launch = async () => {
      daemon = startDaemon(command, args);
      await waitForDaemon(daemon, 'postgres', async () => {
        await run(join(postgresBin, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(port), '-q']);
        return true;
      });
      if (/could not bind|address already in use/i.test(daemon.output())) throw new Error('address already in use');
    };
    await launch();
    await run(join(postgresBin, 'psql'), ['-q', '-c', 'CREATE DATABASE outpost', url]);
    const signal = async (name: NodeJS.Signals) => {
      const running = daemon;
      if (running === undefined || running.hasExited()) return;
      // The postmaster's pid, from its pid file: runuser does not pass a signal on.
      const { stdout } = await run('head', ['-1', join(dataDir, 'postmaster.pid')]);
      process.kill(Number(stdout.trim()), name);
      await running.exited;
    };
    return {
      url: url.replace(/\/postgres$/, '/outpost'),
      port,
      output: () => daemon?.output() ?? '',
      halt: () => signal('SIGINT'),
      kill: () => signal('SIGKILL'),
      start: launch,
      async stop() {
        await signal('SIGINT').catch(() => daemon?.stop());
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await daemon?.stop();
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

async function postgresUser(): Promise<{ uid: number; gid: number }> {
  const { stdout } = await run('id', ['-u', 'postgres']).catch(() => {
    throw new Error(
      "PostgreSQL refuses to run as root, and there is no postgres user to run it as: install Debian's postgresql (bash test/system-deps.sh test)",
    );
  });
  const { stdout: group } = await run('id', ['-g', 'postgres']);
  return { uid: Number(stdout.trim()), gid: Number(group.trim()) };
}
