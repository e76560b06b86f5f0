// A nameserver for `propagation.nameservers` whose answers the test controls: a UDP relay on a free
// loopback port that drops every question while closed and, once opened, passes each to the real
// nameserver behind it and its answer back. Closed for good, it is a nameserver that never answers;
// opened later, it holds an order in `issuing` for as long as the test needs. It keeps each answer it
// relayed with the instants it got the question and sent the answer on, so a test sees when a value
// was first answered and how often it was asked.
import { createSocket, type RemoteInfo } from 'node:dgram';
import { performance } from 'node:perf_hooks';

/** An answer the gate relayed; instants on `performance.now()`'s clock. */
export interface RelayedAnswer {
  /** When the question reached the gate. */
  askedAt: number;
  /** When the gate sent the nameserver's answer on to the asker (just before). */
  answeredAt: number;
  /** The answer, as the nameserver sent it. */
  reply: Buffer;
}

export interface DnsGate {
  /** `127.0.0.1:<port>`. */
  nameserver: string;
  /** Questions it has received, answered or not. */
  questions(): number;
  /** The answers it relayed, in the order it sent them on. */
  answers(): readonly RelayedAnswer[];
  open(): void;
  /** Drops questions again, as when it started. */
  shut(): void;
  /** Drops the next `count` questions even while open, as a network that loses a UDP packet. */
  dropNext(count: number): void;
  close(): Promise<void>;
}

/** `upstreamPort`: the real nameserver's port on 127.0.0.1; it answers only once `open` is called. */
export async function startDnsGate(upstreamPort: number): Promise<DnsGate> {
  const socket = createSocket('udp4');
  let opened = false;
  let received = 0;
  let toDrop = 0;
  const relayed: RelayedAnswer[] = [];
  socket.on('message', (message: Buffer, client: RemoteInfo) => {
    const askedAt = performance.now();
    received += 1;
    if (toDrop > 0) {
      toDrop -= 1;
      return;
    }
    if (!opened) return;
    relay(message, upstreamPort, (reply) => {
      relayed.push({ askedAt, answeredAt: performance.now(), reply });
      socket.send(reply, client.port, client.address);
    });
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const { port } = socket.address();
  return {
    nameserver: `127.0.0.1:${port}`,
    questions: () => received,
    answers: () => relayed,
    open: () => {
      opened = true;
    },
    shut: () => {
      opened = false;
    },
    dropNext: (count) => {
      toDrop = count;
    },
    close: () => new Promise((resolve) => socket.close(() => resolve())),
  };
}

/** One question to the upstream on a socket of its own; no answer within 5 s, none relayed (the asker times out as with a lost packet). */
function relay(message: Buffer, upstreamPort: number, answer: (reply: Buffer) => void): void {
  const upstream = createSocket('udp4');
  const timer = setTimeout(() => upstream.close(), 5000);
  upstream.on('error', () => {
    clearTimeout(timer);
    upstream.close();
  });
  upstream.once('message', (reply: Buffer) => {
    clearTimeout(timer);
    upstream.close();
    answer(reply);
  });
  upstream.send(message, upstreamPort, '127.0.0.1');
}
