// One DNS question put straight to one nameserver, without recursion and without any cache: UDP
// first, TCP when the answer comes back truncated. dns-packet encodes and decodes the messages; Node's
// own resolver (c-ares) is not used because it sets RD, may cache, and hides the AA flag.
import { randomInt } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { connect, isIPv6 } from 'node:net';
import { RECURSION_DESIRED, decode, encode, streamEncode, type Answer, type DecodedPacket, type RecordType } from 'dns-packet';

export interface Nameserver {
  /** An IP address. */
  host: string;
  port: number;
}

export interface DnsReply {
  /** `NOERROR`, `NXDOMAIN`, `SERVFAIL`, `REFUSED`… */
  rcode: string;
  /** The AA flag: the server answered from its own zone data. */
  authoritative: boolean;
  answers: Answer[];
  /** The authority section: where a name has no record of the type asked, the SOA of its zone. */
  authorities: Answer[];
}

/** The UDP payload size offered with EDNS (the DNS Flag Day 2020 value, safe from fragmentation). */
const udpPayloadSize = 1232;
const maxTcpReplyBytes = 65_535 + 2;

export function describeNameserver(server: Nameserver): string {
  return isIPv6(server.host) ? `[${server.host}]:${server.port}` : `${server.host}:${server.port}`;
}

/** `recursive`: the RD flag, for a question to a recursive resolver (an authoritative server ignores it). */
export async function queryNameserver(server: Nameserver, name: string, type: RecordType, timeoutMs: number, recursive = false): Promise<DnsReply> {
  const question = {
    type: 'query' as const,
    id: randomInt(0, 65_536),
    flags: recursive ? RECURSION_DESIRED : 0,
    questions: [{ type, name, class: 'IN' as const }],
  };
  const overUdp = await udpExchange(server, { ...question, additionals: [{ type: 'OPT', name: '.', udpPayloadSize } as Answer] }, question, timeoutMs);
  const reply = overUdp.flag_tc ? await tcpExchange(server, question, question, timeoutMs) : overUdp;
  return {
    rcode: (reply as DecodedPacket & { rcode?: string }).rcode ?? 'NOERROR',
    authoritative: reply.flag_aa,
    answers: reply.answers ?? [],
    authorities: reply.authorities ?? [],
  };
}

/** What a reply must echo to be the answer to a question: its id and its one question. */
interface Asked {
  id: number;
  questions: { type: RecordType; name: string }[];
}

/**
 * Whether `reply` is the answer to `asked`: a response (QR set) with the same id and the same
 * question (RFC 5452 §9.1). A stray or forged packet with the right id but another question, or a
 * query echoed back, is not an answer: taking it could read a challenge as propagated when it is not.
 */
function answers(reply: DecodedPacket, asked: Asked): boolean {
  if (reply.type !== 'response' || reply.id !== asked.id) return false;
  const echoed = reply.questions ?? [];
  return (
    echoed.length === asked.questions.length &&
    echoed.every((question, index) => question.type === asked.questions[index]!.type && sameName(question.name, asked.questions[index]!.name))
  );
}

function sameName(a: string, b: string): boolean {
  return a.replace(/\.$/, '').toLowerCase() === b.replace(/\.$/, '').toLowerCase();
}

/** An IP address in one spelling (an IPv6 address may be written several ways). */
function canonicalAddress(address: string): string {
  return isIPv6(address) ? new URL(`http://[${address}]/`).hostname.slice(1, -1) : address;
}

function udpExchange(server: Nameserver, message: Parameters<typeof encode>[0], asked: Asked, timeoutMs: number): Promise<DecodedPacket> {
  return new Promise((resolve, reject) => {
    const socket = createSocket(isIPv6(server.host) ? 'udp6' : 'udp4');
    let done = false;
    const finish = (error: Error | undefined, reply?: DecodedPacket) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.close();
      if (error !== undefined) reject(error);
      else resolve(reply!);
    };
    const timer = setTimeout(() => finish(new Error(`no answer from ${describeNameserver(server)} within ${timeoutMs} ms`)), timeoutMs);
    socket.on('error', (error) => finish(error));
    socket.on('message', (bytes, from) => {
      // Only the answer to this question, from the server asked (its address and port), is taken;
      // anything else is ignored, as a forged packet from elsewhere would be.
      if (from.port !== server.port || canonicalAddress(from.address) !== canonicalAddress(server.host)) return;
      let reply: DecodedPacket;
      try {
        reply = decode(bytes);
      } catch {
        return;
      }
      if (answers(reply, asked)) finish(undefined, reply);
    });
    // The callback sees a send the host cannot make (ENETUNREACH where it has no IPv6 route) at once;
    // without it that failure is lost and the question only times out.
    socket.send(encode(message), server.port, server.host, (error) => {
      if (error !== null) finish(error);
    });
  });
}

function tcpExchange(server: Nameserver, message: Parameters<typeof encode>[0], asked: Asked, timeoutMs: number): Promise<DecodedPacket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: server.host, port: server.port });
    let received = Buffer.alloc(0);
    let done = false;
    const finish = (error: Error | undefined, reply?: DecodedPacket) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      if (error !== undefined) reject(error);
      else resolve(reply!);
    };
    const timer = setTimeout(() => finish(new Error(`no answer over TCP from ${describeNameserver(server)} within ${timeoutMs} ms`)), timeoutMs);
    socket.on('error', (error) => finish(error));
    socket.on('connect', () => socket.write(streamEncode(message)));
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (received.length > maxTcpReplyBytes) return finish(new Error(`the TCP answer from ${describeNameserver(server)} is too long`));
      if (received.length < 2 || received.length < 2 + received.readUInt16BE(0)) return;
      try {
        const reply = decode(received.subarray(2, 2 + received.readUInt16BE(0)));
        if (!answers(reply, asked)) return finish(new Error(`the TCP answer from ${describeNameserver(server)} is for another question`));
        finish(undefined, reply);
      } catch (error) {
        finish(new Error(`the TCP answer from ${describeNameserver(server)} is not a DNS message (${error instanceof Error ? error.message : String(error)})`));
      }
    });
    socket.on('end', () => finish(new Error(`${describeNameserver(server)} closed the TCP connection before answering`)));
  });
}

/** The strings of a TXT answer joined into the one value they carry. */
export function txtValue(answer: Answer): string | undefined {
  if (answer.type !== 'TXT') return undefined;
  const parts = Array.isArray(answer.data) ? answer.data : [answer.data];
  return parts.map((part) => (typeof part === 'string' ? part : part.toString('utf8'))).join('');
}
