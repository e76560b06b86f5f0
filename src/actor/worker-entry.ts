// The thread side of an actor: reads workerData, wires the system port, starts the definition,
// reports `ready`, serves links, and turns any uncaught failure into an `error` message and exit 1
// so the supervisor's restart policy applies (thread-stream's lib/worker.js does the same).
import { isMainThread, parentPort, workerData, type MessagePort } from 'node:worker_threads';
import type { JobInput, JobName, JobOutput } from '../jobs/catalog.js';
import { loggerFrom } from '../log/record.js';
import { LogRing, type LogListener } from '../log/ring.js';
import { FatalActorError, type ActorContext, type ActorDefinition, type RunningActor } from './actor.js';
import { Mailbox } from './mailbox.js';
import { unexpectedMessage } from './message.js';
import type { ActorToSupervisor, ActorWorkerData, SupervisorToActor, ThreadError } from './protocol.js';
import { exposeApi, PeerLink, remoteApi } from './rpc.js';
import type { SupervisorApi } from './supervisor-api.js';

/** How many records an actor that streams logs keeps locally for new subscribers. */
const logMirrorCapacity = 1000;

export function runActor<Config>(definition: ActorDefinition<Config>): void {
  if (isMainThread || parentPort === null) throw new Error('runActor() runs only inside an actor worker thread');
  const data = workerData as ActorWorkerData;
  const system = new Mailbox<SupervisorToActor, ActorToSupervisor>(parentPort);
  const log = loggerFrom(data.name, (record) => system.post({ type: 'log', record }));

  const exitHooks: (() => void)[] = [];
  process.on('exit', () => {
    for (const hook of exitHooks.splice(0)) {
      try {
        hook();
      } catch {
        // The thread is ending; a failing close must not keep the next one from running.
      }
    }
  });
  const fail = (error: unknown) => {
    system.post({ type: 'error', error: toThreadError(error) });
    process.exit(1);
  };
  process.on('uncaughtException', fail);
  process.on('unhandledRejection', fail);

  const supervisor = remoteApi<SupervisorApi>(data.supervisorPort);
  const peers = new Map<string, PeerLink<unknown>>();
  const accepted = new Map<string, MessagePort>();
  const waitingAccepts: { from: string; port: MessagePort }[] = [];
  // Event-loop utilisation comes from libuv's own counters; a delay histogram would need a timer
  // waking every thread many times a second, which is most of an idle actor's cost.
  let lastLoopUsage = performance.eventLoopUtilization();
  const startedAt = performance.now();
  let running: RunningActor | undefined;
  let logMirror: LogRing | undefined;
  const logListeners = new Set<LogListener>();

  const peer = <Api>(name: string): PeerLink<Api> => {
    let link = peers.get(name);
    if (link === undefined) {
      link = new PeerLink<unknown>(name);
      peers.set(name, link);
    }
    return link as PeerLink<Api>;
  };

  const accept = (from: string, port: MessagePort) => {
    accepted.get(from)?.close();
    if (running?.api === undefined) {
      log.warn('a link was made to an actor that serves no API', { from });
      port.close();
      return;
    }
    accepted.set(from, port);
    exposeApi(running.api, port);
  };

  const context: ActorContext<Config> = {
    name: data.name,
    kind: data.kind,
    instance: data.instance,
    config: data.config as Config,
    log,
    jobs: { run: <Name extends JobName>(name: Name, input: JobInput<Name>) => supervisor.runJob(name, input) as Promise<JobOutput<Name>> },
    peer,
    subscribeLogs(listener, backlog = 100) {
      if (logMirror === undefined) {
        logMirror = new LogRing(logMirrorCapacity);
        system.post({ type: 'logs.subscribe', backlog: logMirrorCapacity });
      }
      for (const record of logMirror.recent(backlog)) listener(record);
      logListeners.add(listener);
      return () => {
        logListeners.delete(listener);
      };
    },
    onThreadExit(close) {
      exitHooks.push(close);
    },
  };

  const stop = async (graceMs: number) => {
    await starting.catch(() => {});
    await running?.stop?.(graceMs);
    process.exit(0);
  };

  system.listen((message) => {
    switch (message.type) {
      case 'link':
        peer(message.name).attach(message.port);
        break;
      case 'accept':
        if (running === undefined) waitingAccepts.push({ from: message.from, port: message.port });
        else accept(message.from, message.port);
        break;
      case 'unlink':
        peers.get(message.name)?.detach('stopped');
        accepted.get(message.name)?.close();
        accepted.delete(message.name);
        break;
      case 'logs.records':
        for (const record of message.records) {
          logMirror?.push(record);
          for (const listener of logListeners) listener(record);
        }
        break;
      case 'health':
        system.post({
          type: 'health',
          health: {
            uptimeMs: Math.round(performance.now() - startedAt),
            heapUsedBytes: process.memoryUsage().heapUsed,
            loopUtilization: performance.eventLoopUtilization(lastLoopUsage).utilization,
          },
        });
        lastLoopUsage = performance.eventLoopUtilization();
        break;
      case 'stop':
        stop(message.graceMs).catch(fail);
        break;
      default:
        unexpectedMessage(`actor ${data.name}`, message);
    }
  });

  const starting = (async () => {
    running = await definition.start(context);
    for (const { from, port } of waitingAccepts.splice(0)) accept(from, port);
    system.post({ type: 'ready', info: running.ready ?? {} });
  })();
  starting.catch(fail);
}

function toThreadError(error: unknown): ThreadError {
  if (error instanceof FatalActorError) return { name: error.name, message: error.message, fatal: true };
  if (error instanceof Error) {
    return error.stack === undefined ? { name: error.name, message: error.message } : { name: error.name, message: error.message, stack: error.stack };
  }
  return { name: 'Error', message: String(error) };
}
