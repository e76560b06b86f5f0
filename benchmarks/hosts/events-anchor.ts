// The events benchmark's anchor: the same numbered events posted straight from one worker thread to
// four others over MessageChannels, batched the same way, with no supervisor in between: the
// ceiling of structured-clone messaging between threads on this machine.
// Usage: node events-anchor.js <count>; prints {"ms": n}.
import { isMainThread, MessageChannel, parentPort, Worker, workerData, type MessagePort } from 'node:worker_threads';

const perTurn = 2000;
const subscribers = 4;

interface Seat {
  role: 'publisher' | 'subscriber';
  count: number;
  ports: MessagePort[];
}

if (isMainThread) {
  const count = Number(process.argv[2] ?? '100000');
  const channels = Array.from({ length: subscribers }, () => new MessageChannel());
  const subscriberThreads = channels.map(
    (channel) =>
      new Worker(new URL(import.meta.url), { workerData: { role: 'subscriber', count, ports: [channel.port2] } satisfies Seat, transferList: [channel.port2] }),
  );
  const done = Promise.all(subscriberThreads.map((worker) => new Promise<void>((resolve) => worker.once('message', () => resolve()))));
  await new Promise((resolve) => setTimeout(resolve, 200));
  const publisher = new Worker(new URL(import.meta.url), {
    workerData: { role: 'publisher', count, ports: channels.map((channel) => channel.port1) } satisfies Seat,
    transferList: channels.map((channel) => channel.port1),
  });
  const startedAt = await new Promise<number>((resolve) => publisher.once('message', (at: number) => resolve(at)));
  await done;
  const ms = performance.timeOrigin + performance.now() - startedAt;
  process.stdout.write(`${JSON.stringify({ ms })}\n`);
  for (const worker of [...subscriberThreads, publisher]) await worker.terminate();
} else {
  const seat = workerData as Seat;
  if (seat.role === 'subscriber') {
    let received = 0;
    seat.ports[0]?.on('message', (batch: { seq: number }[]) => {
      received += batch.length;
      if (received === seat.count) parentPort?.postMessage('done');
    });
  } else {
    parentPort?.postMessage(performance.timeOrigin + performance.now());
    let batch: { run: number; seq: number; count: number }[] = [];
    for (let seq = 0; seq < seat.count; seq++) {
      batch.push({ run: 1, seq, count: seat.count });
      if (batch.length === perTurn || seq === seat.count - 1) {
        for (const port of seat.ports) port.postMessage(batch);
        batch = [];
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
  }
}
