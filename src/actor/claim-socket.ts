// The socket a claim is (see claims.ts). On Linux it lives in the abstract namespace (`\0outpost/...`):
// no file, and the name is free again the moment its process is gone. Abstract names belong to a
// network namespace, which suits ports (they do too); a store shared by processes in different
// network namespaces is not protected. Elsewhere (macOS) it is a socket file in a folder of this user
// under /tmp; a file left by a process that died answers no connection and is replaced.
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, rmSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { basename, join } from 'node:path';

export interface Holder {
  pid: number;
  /** `qpool serve`, `hostwatch`. */
  command: string;
}

/** Claims held until the process exits; kept here so that nothing closes them. */
const held = new Map<string, Server>();

const answerTimeoutMs = 1000;

/** Binds the claim `name`; resolves false when another socket holds it. */
export async function bindClaim(name: string, address = claimAddress(name)): Promise<boolean> {
  if (held.has(name)) return true;
  let server = await listenOnce(address);
  if (server === undefined && !address.startsWith('\0') && isSocketFile(address) && (await askHolder(name, address)) === undefined) {
    // A socket file whose process died (only files outlive their process): take its place.
    rmSync(address, { force: true });
    server = await listenOnce(address);
  }
  if (server === undefined) return false;
  held.set(name, server);
  return true;
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
  if (process.platform === 'linux') return `\0outpost/${name}`;
  // A socket path has room for about 100 bytes: the name is hashed.
  const folder = join('/tmp', `outpost-${process.getuid?.() ?? 'user'}`);
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  return join(folder, `${createHash('sha256').update(name).digest('hex').slice(0, 32)}.sock`);
}

function isSocketFile(path: string): boolean {
  try {
    return lstatSync(path).isSocket();
  } catch {
    return false;
  }
}

function listenOnce(address: string): Promise<Server | undefined> {
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
