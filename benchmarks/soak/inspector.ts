// The soaked process's inspector (the role runs with --inspect on a reserved loopback port,
// startInspected): before each sample, a full GC in every thread, and each thread's V8 heap read right
// after it. A thread's used heap as its /metrics pushes it counts garbage too, and V8 lets a front's
// old space fill with the garbage of relayed WebSockets (about 8 KiB each, from 9 to 23 MiB over
// 2,000) before its next full GC: a 10-minute soak then fits the rising side of one GC tooth and calls
// it a leak. After a forced GC only what stays is counted (docs/benchmarks.md, Soak).
import WebSocket from 'ws';
import { reservePort } from '../../src/http/port.js';

interface Answer {
  id?: number;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { message: string };
}

interface WorkerInfo {
  workerId: string;
  url: string;
}

const callTimeoutMs = 10_000;

/** "Debugger listening on ws://127.0.0.1:PORT/UUID", as Node prints it on stderr. */
export const inspectorLine = /Debugger listening on (ws:\/\/\S+)/;

/**
 * Opens a soaked process's inspector on a reserved loopback port: `start` gets the option to give
 * node (`--inspect=127.0.0.1:PORT`, as an argument or in NODE_OPTIONS) and resolves with what it
 * started; the inspector is then connected, and `stop` runs when it cannot be.
 */
export async function startInspected<T>(
  start: (inspectOption: string) => Promise<T>,
  stop: (started: T) => Promise<unknown>,
): Promise<{ started: T; inspector: InspectedProcess }> {
  const port = await reservePort('127.0.0.1');
  const started = await start(`--inspect=127.0.0.1:${port}`);
  try {
    return { started, inspector: await InspectedProcess.connectToPort(port) };
  } catch (error) {
    await stop(started);
    throw error;
  }
}

export class InspectedProcess {
  private nextId = 1;
  private readonly pending = new Map<string, { resolve: (result: Record<string, unknown>) => void; reject: (error: Error) => void }>();
  /** Worker threads by inspector session: their thread id and entry file, which name them. */
  private readonly workers = new Map<string, WorkerInfo>();

  private constructor(private readonly socket: WebSocket) {
    // The inspector sends text frames: ws hands each over as one Buffer.
    socket.on('message', (data: Buffer) => this.receive(JSON.parse(data.toString('utf8')) as Answer, 'main'));
    socket.on('close', () => {
      for (const { reject } of this.pending.values()) reject(new Error('the inspector closed'));
      this.pending.clear();
    });
  }

  /** The inspector of a process started with `--inspect=127.0.0.1:<port>` (its address read from the port's /json/list). */
  static async connectToPort(port: number): Promise<InspectedProcess> {
    const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as { webSocketDebuggerUrl: string }[];
    const url = targets[0]?.webSocketDebuggerUrl;
    if (url === undefined) throw new Error(`the inspector on port ${port} lists no target`);
    return InspectedProcess.connect(url);
  }

  static async connect(url: string): Promise<InspectedProcess> {
    const socket = new WebSocket(url);
    await new Promise<void>((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    const inspected = new InspectedProcess(socket);
    // Attaches to the threads running now and to each one started later (a restarted actor).
    await inspected.call('main', 'NodeWorker.enable', { waitForDebuggerOnStart: false });
    return inspected;
  }

  /** Collects garbage in every thread, then reads each one's used heap: `supervisor` and `<actor folder> (thread N)`. */
  async heapsAfterFullGc(): Promise<Map<string, number>> {
    const heaps = new Map<string, number>();
    for (const [session, name] of [['main', 'supervisor'], ...[...this.workers].map(([id, info]) => [id, threadName(info)] as const)] as const) {
      try {
        await this.call(session, 'HeapProfiler.collectGarbage');
        const usage = await this.call(session, 'Runtime.getHeapUsage');
        heaps.set(name, Number(usage['usedSize']));
      } catch (error) {
        // A thread that ended between the list and the call (an actor restarting) is left out of this sample.
        if (session === 'main') throw error;
      }
    }
    return heaps;
  }

  close(): void {
    this.socket.close();
  }

  private call(session: string, method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    const id = this.nextId++;
    const message = JSON.stringify({ id, method, params });
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(`${session}:${id}`);
        reject(new Error(`the inspector did not answer ${method} in ${callTimeoutMs / 1000} s`));
      }, callTimeoutMs);
      this.pending.set(`${session}:${id}`, {
        resolve: (result) => (clearTimeout(timer), resolve(result)),
        reject: (error) => (clearTimeout(timer), reject(error)),
      });
      if (session === 'main') this.socket.send(message);
      else this.socket.send(JSON.stringify({ id: this.nextId++, method: 'NodeWorker.sendMessageToWorker', params: { sessionId: session, message } }));
    });
  }

  private receive(answer: Answer, session: string): void {
    if (answer.id !== undefined) {
      const waiting = this.pending.get(`${session}:${answer.id}`);
      this.pending.delete(`${session}:${answer.id}`);
      if (answer.error !== undefined) waiting?.reject(new Error(answer.error.message));
      else waiting?.resolve(answer.result ?? {});
      return;
    }
    const params = answer.params ?? {};
    if (answer.method === 'NodeWorker.attachedToWorker') this.workers.set(String(params['sessionId']), params['workerInfo'] as WorkerInfo);
    else if (answer.method === 'NodeWorker.detachedFromWorker') this.workers.delete(String(params['sessionId']));
    else if (answer.method === 'NodeWorker.receivedMessageFromWorker')
      this.receive(JSON.parse(String(params['message'])) as Answer, String(params['sessionId']));
  }
}

/** `proxy-front (thread 3)`: the folder of the thread's entry file (its actor kind), or the package it comes from (`piscina`), and its thread id. */
function threadName({ workerId, url }: WorkerInfo): string {
  // A thread started from code rather than a file has no URL.
  const path = URL.canParse(url) ? new URL(url).pathname : undefined;
  const name = (path === undefined ? undefined : /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path)?.[1]) ?? path?.split('/').slice(-2, -1)[0];
  return `${name ?? 'worker'} (thread ${workerId})`;
}
