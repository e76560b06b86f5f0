// The socket a claim is (see claims.ts): a socket file in this user's own folder
// (src/store/own-directory.ts: `$TMPDIR/outpost-<uid>`, made 0700, refused when another user owns it
// or may write to it), so that no other local user can bind a claim's name first and keep outpost
// from starting. A file left by a process that died answers no connection and is replaced; a process
// that exits removes its own. Claims are per user: processes of two users never share a store's files
// (the folders are 0700) nor a port (SO_REUSEPORT joins sockets of one user only, and the port is
// probed besides).
import { createHash } from 'node:crypto';
import { lstatSync, rmdirSync, rmSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { basename, dirname, join } from 'node:path';
import { ensureOwnDirectory, userSocketDirectory } from '../store/own-directory.js';

export interface Holder {
  pid: number;
  /** `qpool serve`, `hostwatch`. */
  command: string;
}

/** Claims held until the process exits; kept here so that nothing closes them. */
const held = new Map<string, Server>();

const answerTimeoutMs = 1000;

/**
 * Binds the claim `name`; resolves false when another socket holds it. Throws UnsafeDirectory when
 * the folder of claims is not this user's own.
 */
export async function bindClaim(name: string, address = claimAddress(name)): Promise<boolean> {
  if (held.has(name)) return true;
  let server = await listenOnce(address);
  if (server === undefined && isSocketFile(address) && (await askHolder(name, address)) === undefined) {
    // A socket file whose process died (only files outlive their process): take its place.
    rmSync(address, { force: true });
    server = await listenOnce(address);
  }
  if (server === undefined) return false;
  if (held.size === 0) process.once('exit', releaseClaims);
  held.set(name, server);
  return true;
}

/** Removes this process's claim files as it exits (a SIGKILL leaves them: they are replaced later), and the folder once empty. */
function releaseClaims(): void {
  const folder = userSocketDirectory();
  for (const server of held.values()) {
    const address = server.address();
    if (typeof address === 'string') rmSync(address, { force: true });
  }
  held.clear();
  try {
    rmdirSync(folder);
  } catch {
    // Not empty: another process's claims or control socket are in it.
  }
}

/** Asks the process holding `name` who it is; undefined when nothing answers as a holder would. */
export function askHolder(name: string, address = claimAddress(name)): Promise<Holder | undefined> {
  return new Promise((resolve) => {
    let answer = '';
    const socket = connect({ path: address });
    const done = (holder: Holder | undefined) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(holder);
    };
    const timer = setTimeout(() => done(undefined), answerTimeoutMs);
    socket.setEncoding('utf8');
    socket.on('data', (text: string) => {
      answer += text;
      if (answer.length > 1024) done(undefined);
    });
    socket.on('end', () => done(parseHolder(answer)));
    socket.on('error', () => done(undefined));
  });
}

export function claimAddress(name: string): string {
  // A socket path has room for about 100 bytes: the name is hashed.
  return join(userSocketDirectory(), `claim-${createHash('sha256').update(name).digest('hex').slice(0, 32)}.sock`);
}

function isSocketFile(path: string): boolean {
  try {
    return lstatSync(path).isSocket();
  } catch {
    return false;
  }
}

/** Listens on `address`; in this user's folder of claims, made (or checked) first. */
async function listenOnce(address: string): Promise<Server | undefined> {
  const folder = userSocketDirectory();
  if (dirname(address) !== folder) return listenAt(address);
  for (;;) {
    ensureOwnDirectory(folder);
    try {
      return await listenAt(address);
    } catch (error) {
      // A process exiting at this instant removed the folder, empty then (releaseClaims): make it again.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
}

function listenAt(address: string): Promise<Server | undefined> {
  return new Promise((resolve, reject) => {
    const server = createServer((socket) => {
      socket.on('error', () => {});
      socket.end(`${JSON.stringify(self())}\n`);
    });
    server.once('error', (error: NodeJS.ErrnoException) => (error.code === 'EADDRINUSE' ? resolve(undefined) : reject(error)));
    server.listen({ path: address }, () => {
      // A claim never keeps the process running on its own.
      server.unref();
      resolve(server);
    });
  });
}

function self(): Holder {
  const [, script = '', first] = process.argv;
  const program = basename(script).replace(/\.js$/, '');
  return { pid: process.pid, command: first === undefined || first.startsWith('-') ? program : `${program} ${first}` };
}

function parseHolder(text: string): Holder | undefined {
  try {
    const value = JSON.parse(text) as Partial<Holder>;
    return typeof value.pid === 'number' && typeof value.command === 'string' ? { pid: value.pid, command: value.command } : undefined;
  } catch {
    return undefined;
  }
}
