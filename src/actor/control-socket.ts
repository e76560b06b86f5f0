// The local socket a running supervisor answers `outpost status` on: a Unix socket file of mode 0600
// (only the user it runs as, and root, may connect), never a network port. It reads nothing from the
// client: each connection gets the status as one JSON document and is closed, so there is no request
// to parse and nothing a client can change. Its folder must be this user's own
// (src/store/own-directory.ts): in a folder another user may write, that user could put a socket of
// their own at the path first and answer `outpost status` in the supervisor's place.
import { chmodSync, lstatSync, mkdirSync, rmdirSync, rmSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { dirname, join } from 'node:path';
import { checkOwnDirectory, UnsafeDirectory, userSocketDirectory } from '../store/own-directory.js';
import type { SupervisorStatus } from './actor-status.js';

const answerTimeoutMs = 2000;

/**
 * Where the socket is when the host config names none: systemd's RuntimeDirectory (the units set
 * RuntimeDirectory=outpost), else the user's runtime folder, else a 0700 folder of the user under /tmp.
 */
export function defaultControlSocket(env: NodeJS.ProcessEnv = process.env): string {
  if (env.RUNTIME_DIRECTORY !== undefined && env.RUNTIME_DIRECTORY !== '') return join(env.RUNTIME_DIRECTORY.split(':')[0]!, 'control.sock');
  if (env.XDG_RUNTIME_DIR !== undefined && env.XDG_RUNTIME_DIR !== '') return join(env.XDG_RUNTIME_DIR, 'outpost.sock');
  return join(userSocketDirectory(), 'control.sock');
}

/** `unsafe`: the socket's folder is not this user's own (own-directory.ts); not listening there is a warning. */
export type ControlSocketOutcome = { listening: true; close: () => void } | { listening: false; reason: string; unsafe?: true };

/**
 * Listens on `path`; a socket file left by a process that died is replaced, a live one is left alone.
 * Several outposts may start and stop at once on one path (the default one of a user): only a file
 * nothing listens on is taken as left behind, and a stopping one removes no file but its own.
 */
export async function openControlSocket(path: string, status: () => SupervisorStatus): Promise<ControlSocketOutcome> {
  // The first folder made here, if any: removed again on close, so a stop leaves nothing behind.
  const madeDir = mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  try {
    checkOwnDirectory(dirname(path));
  } catch (error) {
    if (error instanceof UnsafeDirectory) return { listening: false, reason: `refused the folder of ${path}: ${error.message}`, unsafe: true };
    throw error;
  }
  if (isSocketFile(path)) {
    const answered = await askStatus(path).then(
      () => true,
      // Refused: nothing listens, the file was left by a process that died. Any other failure (no
      // answer in time from a busy supervisor) is a live one's.
      (error: NodeJS.ErrnoException) => error.code !== 'ECONNREFUSED' && error.code !== 'ENOENT',
    );
    if (answered) return { listening: false, reason: `another running outpost answers on ${path}` };
    rmSync(path, { force: true });
  }
  const server = createServer((socket) => {
    socket.on('error', () => socket.destroy());
    socket.end(`${JSON.stringify(status())}\n`);
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ path, exclusive: true }, () => resolve());
    });
  } catch (error) {
    return { listening: false, reason: `cannot listen on ${path}: ${(error as Error).message}` };
  }
  try {
    // Before anyone can have connected in practice: the folder is 0700 unless an operator chose another.
    chmodSync(path, 0o600);
  } catch (error) {
    // Another process starting at this instant took the path for a dead one's and removed our file.
    server.close();
    return { listening: false, reason: `${path} was taken by another outpost as it started (${(error as NodeJS.ErrnoException).code ?? String(error)})` };
  }
  server.unref();
  return { listening: true, close: () => closeServer(server, madeDir, path) };
}

function closeServer(server: Server, madeDir: string | undefined, path: string): void {
  // libuv removes the socket file itself, before it closes the socket (so no other process can have
  // taken the path by then); removing it here too, after, removed the file of an outpost starting at
  // that instant, which then died of chmod ENOENT.
  server.close();
  if (madeDir === undefined) return;
  for (let dir = dirname(path); dir.startsWith(madeDir); dir = dirname(dir)) {
    try {
      rmdirSync(dir);
    } catch {
      return; // not empty: another process put something there since
    }
  }
}

/** Asks the supervisor listening on `path` for its status. */
export function askStatus(path: string): Promise<SupervisorStatus> {
  return new Promise((resolve, reject) => {
    let answer = '';
    const socket = connect({ path });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer on ${path} within ${answerTimeoutMs} ms`));
    }, answerTimeoutMs);
    socket.setEncoding('utf8');
    socket.on('data', (text: string) => (answer += text));
    socket.on('end', () => {
      clearTimeout(timer);
      try {
        resolve(JSON.parse(answer) as SupervisorStatus);
      } catch {
        reject(new Error(`${path} did not answer as an outpost supervisor does`));
      }
    });
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

function isSocketFile(path: string): boolean {
  try {
    return lstatSync(path).isSocket();
  } catch {
    return false;
  }
}
