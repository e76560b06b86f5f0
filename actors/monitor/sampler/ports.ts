// Listening TCP sockets from Linux's /proc/net/tcp and /proc/net/tcp6
// (https://www.kernel.org/doc/Documentation/networking/proc_net_tcp.txt).
import { formatHostPort, isLoopbackOnly } from '../../../src/net/address.js';
import type { ListeningPort } from './protocol.js';

export interface ListeningSocket {
  port: number;
  /** The local address without the port: `0.0.0.0`, `::`, `192.0.2.7`. */
  host: string;
  protocol: 'tcp' | 'tcp6';
  /** The socket's inode: /proc/<pid>/fd/* links to `socket:[inode]` in the owning process. */
  inode: number;
}

const listenState = '0A';

export function parseProcNetTcp(text: string, protocol: 'tcp' | 'tcp6'): ListeningSocket[] {
  const sockets: ListeningSocket[] = [];
  for (const line of text.split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 10 || fields[3] !== listenState) continue;
    const [hexHost, hexPort] = fields[1]!.split(':');
    if (hexHost === undefined || hexPort === undefined) continue;
    sockets.push({ port: parseInt(hexPort, 16), host: protocol === 'tcp' ? ipv4FromHex(hexHost) : ipv6FromHex(hexHost), protocol, inode: Number(fields[9]) });
  }
  return sockets;
}

/** The kernel prints each 32-bit word of the address in host byte order (little-endian here). */
function wordsFromHex(hex: string): number[][] {
  const words: number[][] = [];
  for (let offset = 0; offset < hex.length; offset += 8) {
    const word = hex.slice(offset, offset + 8);
    words.push([6, 4, 2, 0].map((at) => parseInt(word.slice(at, at + 2), 16)));
  }
  return words;
}

function ipv4FromHex(hex: string): string {
  return wordsFromHex(hex)[0]!.join('.');
}

function ipv6FromHex(hex: string): string {
  const bytes = wordsFromHex(hex).flat();
  if (bytes.slice(0, 10).every((byte) => byte === 0) && bytes[10] === 0xff && bytes[11] === 0xff) {
    return `::ffff:${bytes.slice(12).join('.')}`;
  }
  const groups: string[] = [];
  for (let index = 0; index < 16; index += 2) groups.push(((bytes[index]! << 8) | bytes[index + 1]!).toString(16));
  return compressIpv6(groups);
}

/** RFC 5952: the longest run of two or more zero groups becomes `::`. */
function compressIpv6(groups: string[]): string {
  let bestStart = -1;
  let bestLength = 0;
  for (let start = 0; start < groups.length; ) {
    if (groups[start] !== '0') {
      start++;
      continue;
    }
    let end = start;
    while (end < groups.length && groups[end] === '0') end++;
    if (end - start > bestLength && end - start >= 2) {
      bestStart = start;
      bestLength = end - start;
    }
    start = end;
  }
  if (bestStart < 0) return groups.join(':');
  return `${groups.slice(0, bestStart).join(':')}::${groups.slice(bestStart + bestLength).join(':')}`;
}

export function listeningPorts(sockets: readonly ListeningSocket[], owners: ReadonlyMap<number, { pid: number; name: string }>): ListeningPort[] {
  const seen = new Set<string>();
  const ports: ListeningPort[] = [];
  for (const socket of sockets) {
    if (isLoopbackOnly(socket.host)) continue;
    const address = formatHostPort(socket.host, socket.port);
    const owner = owners.get(socket.inode);
    // SO_REUSEPORT lets several sockets share one address; the table shows it once.
    const key = `${socket.protocol} ${address}`;
    if (seen.has(key)) continue;
    seen.add(key);
    ports.push({ port: socket.port, address, protocol: socket.protocol, process: owner?.name ?? '', pid: owner?.pid ?? null });
  }
  return ports.sort((a, b) => a.port - b.port || a.address.localeCompare(b.address));
}

/** macOS `lsof -nP -iTCP -sTCP:LISTEN`: `COMMAND PID USER FD TYPE DEVICE SIZE/OFF NODE NAME`, NAME like `*:8080 (LISTEN)`. */
export function parseLsofListen(text: string): ListeningPort[] {
  const ports: ListeningPort[] = [];
  const seen = new Set<string>();
  for (const line of text.split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 10) continue;
    const name = fields[fields.length - 2]!;
    const type = fields[4];
    const separator = name.lastIndexOf(':');
    let host = name.slice(0, separator).replace(/^\[|\]$/g, '');
    const port = Number(name.slice(separator + 1));
    const protocol = type === 'IPv6' ? 'tcp6' : 'tcp';
    if (host === '*') host = protocol === 'tcp6' ? '::' : '0.0.0.0';
    if (!Number.isInteger(port) || isLoopbackOnly(host)) continue;
    const address = formatHostPort(host, port);
    if (seen.has(`${protocol} ${address}`)) continue;
    seen.add(`${protocol} ${address}`);
    ports.push({ port, address, protocol, process: fields[0]!.replace(/\\x20/g, ' '), pid: Number(fields[1]) });
  }
  return ports.sort((a, b) => a.port - b.port || a.address.localeCompare(b.address));
}
