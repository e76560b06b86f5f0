// hostwatch under soak: 50 clients on the dashboard's live stream (/api/stream, Server-Sent Events)
// for the whole run, one of them closed and replaced every 5 s so streams also come and go, and a
// /api/snapshot every 2 s as a page's first load does. Each client must keep receiving snapshots.
import { startServer } from '../../harness.js';
import { startInspected } from '../inspector.js';
import { every, expectStatus, type Tally } from '../load.js';
import type { StartRole } from '../role.js';

const streamClients = 50;
/** A stream that saw no snapshot for this long is stuck (the sampler pushes one every 2 s). */
const stuckAfterMs = 15_000;

interface StreamClient {
  abort: AbortController;
  lastSnapshotAt: number;
  done: Promise<void>;
}

export const soakMonitor: StartRole = async () => {
  // The inspector on a loopback port: the sampler collects garbage in every thread before a sample (inspector.ts).
  const { started: server, inspector } = await startInspected(
    (option) => startServer(new URL('../../../bin/hostwatch.js', import.meta.url), ['-H', '127.0.0.1', '-p', '0', '-q'], { NODE_OPTIONS: option }),
    (server) => server.stop(),
  );
  const url = server.urls[0]!;
  return {
    target: { pid: server.child.pid!, metrics: () => fetch(`${url}metrics`), inspector },
    load: `${streamClients} clients on /api/stream (one replaced every 5 s), /api/snapshot every 2 s`,
    async run(signal: AbortSignal, tally: Tally) {
      const open = (): StreamClient => {
        const client: StreamClient = { abort: new AbortController(), lastSnapshotAt: performance.now(), done: Promise.resolve() };
        client.done = readStream(`${url}api/stream`, client, tally);
        return client;
      };
      const clients = Array.from({ length: streamClients }, open);
      let replaced = 0;
      await Promise.all([
        every(5000, signal, tally, 'stream replaced', async () => {
          const index = replaced++ % clients.length;
          clients[index]!.abort.abort();
          await clients[index]!.done;
          clients[index] = open();
          tally.ok('stream replaced');
        }),
        every(2000, signal, tally, 'snapshot', async () => {
          await expectStatus(await fetch(`${url}api/snapshot`), 200);
          tally.ok('snapshot 200');
        }),
        every(5000, signal, tally, 'streams receiving', () => {
          const stuck = clients.filter((client) => performance.now() - client.lastSnapshotAt > stuckAfterMs).length;
          if (stuck > 0) return Promise.reject(new Error(`${stuck} streams saw no snapshot for ${stuckAfterMs / 1000} s`));
          tally.ok('check: every stream receiving');
          return Promise.resolve();
        }),
      ]);
      for (const client of clients) client.abort.abort();
      await Promise.all(clients.map((client) => client.done));
    },
    log: () => '',
    stop: () => (inspector.close(), server.stop()),
  };
};

/** Reads one stream until it is aborted, noting each snapshot event; an end the client did not ask for is a failure. */
async function readStream(url: string, client: StreamClient, tally: Tally): Promise<void> {
  try {
    const response = await fetch(url, { signal: client.abort.signal });
    if (response.status !== 200 || response.body === null) throw new Error(`HTTP ${response.status}`);
    tally.ok('stream opened 200');
    const decoder = new TextDecoder();
    let pending = '';
    for await (const chunk of response.body) {
      pending += decoder.decode(chunk as Uint8Array, { stream: true });
      const events = pending.split('\n\n');
      pending = events.pop() ?? '';
      const snapshots = events.filter((event) => event.startsWith('event: snapshot')).length;
      if (snapshots > 0) {
        client.lastSnapshotAt = performance.now();
        tally.ok('snapshot event', snapshots);
      }
    }
    if (!client.abort.signal.aborted) tally.failed('stream', 'the server ended it');
  } catch (error) {
    if (!client.abort.signal.aborted) tally.failed('stream', error instanceof Error ? error.message : String(error));
  }
}
