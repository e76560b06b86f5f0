// The thread side of an actor: reads workerData, wires the system port, starts the definition,
// reports `ready`, serves links, and turns any uncaught failure into an `error` message and exit 1
// so the supervisor's restart policy applies (thread-stream's lib/worker.js does the same).
import { isMainThread, parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { jobRef, type JobKind } from '../jobs/job.js';
import { loggerFrom } from '../log/record.js';
import { ThreadMetricsPusher } from '../metrics/thread-metrics.js';
import { figuresKey, metricsTopic } from '../metrics/topic.js';
import { LogViewers } from '../log/log-viewers.js';
import { FatalActorError, type ActorContext, type ActorDefinition, type RunningActor } from './actor.js';
import { EventChannel } from './event-channel.js';
import type { ActorApi, ActorKind, ActorRef } from './kind.js';
import { Mailbox } from './mailbox.js';
import { unexpectedMessage } from './message.js';
import type { ActorToSupervisor, ActorWorkerData, SupervisorToActor, ThreadError } from './protocol.js';
import { exposeApi, PeerLink, remoteApi } from './rpc.js';
import type { SupervisorApi } from './supervisor-api.js';

/** Runs the actor of kind `kind` in this worker thread; `kind` ties the definition to its declared API and config. */
export function runActor<Api extends ActorApi, Config>(kind: ActorKind<Api, Config>, definition: ActorDefinition<Api, Config>): void {
  if (isMainThread || parentPort === null) throw new Error('runActor() runs only inside an actor worker thread');
  const data = workerData as ActorWorkerData;
  if (data.kind !== kind.kind) throw new Error(`the thread entry of ${kind.kind} was started as ${data.kind}`);
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
  const peers = new Map<string, PeerLink<ActorApi>>();
  const accepted = new Map<string, MessagePort>();
  const waitingAccepts: { from: string; port: MessagePort }[] = [];
  // Event-loop utilisation comes from libuv's own counters; a delay histogram would need a timer
  // waking every thread many times a second, which is most of an idle actor's cost.
  let lastLoopUsage = performance.eventLoopUtilization();
  const startedAt = performance.now();
  let running: RunningActor<Api> | undefined;
  const events = new EventChannel({
    publish: (batches) => system.post({ type: 'events.publish', batches }),
    subscribe: (topic) => system.post({ type: 'events.subscribe', topic }),
    unsubscribe: (topic) => system.post({ type: 'events.unsubscribe', topic }),
  });
  const metrics = new ThreadMetricsPusher({ thread: data.name, role: data.role }, data.metricsIntervalMs, (families) => {
    for (const family of families) {
      const figures = { thread: data.name, family };
      events.publish(metricsTopic(data.role), figures, { key: figuresKey(figures) });
    }
  });
  const logViewers = new LogViewers({
    subscribe: (id, backlog) => system.post({ type: 'logs.subscribe', id, backlog }),
    unsubscribe: (id) => system.post({ type: 'logs.unsubscribe', id }),
  });

  const peer = <PeerApi extends ActorApi>(ref: ActorRef<PeerApi>): PeerLink<PeerApi> => {
    let link = peers.get(ref.name);
    if (link === undefined) {
      link = new PeerLink<ActorApi>(ref.name);
      peers.set(ref.name, link);
    }
    // The link was made for this name by the role, whose spec declared the peer's kind.
    return link as PeerLink<PeerApi>;
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
    role: data.role,
    config: data.config as Config,
    metrics,
    setReadiness: (ready, reason) => system.post({ type: 'readiness', ready, ...(reason === undefined ? {} : { reason }) }),
    log,
    jobs: { run: <Input, Output>(job: JobKind<Input, Output>, input: Input) => supervisor.runJob(jobRef(job), input) as Promise<Output> },
    peer,
    publish: (topic, message, options) => events.publish(topic, message, options),
    subscribe: (topic, listener, options) => events.subscribe(topic, listener, options),
    subscribeLogs: (listener, backlog = 100) => logViewers.subscribe(listener, backlog),
    onThreadExit(close) {
      exitHooks.push(close);
    },
  };

  const stop = async (graceMs: number) => {
    await starting.catch(() => {});
    metrics.stop();
    await running?.stop?.(graceMs);
    events.flush();
    process.exit(0);
  };

  system.listen((message) => {
    switch (message.type) {
      case 'link':
        peer({ name: message.name }).attach(message.port);
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
      case 'logs.backlog':
        logViewers.onBacklog(message.id, message.records);
        break;
      case 'logs.records':
        logViewers.onLive(message.records);
        break;
      case 'logs.refused':
        // A role reading logs without declaring it is a mistake of its code: restarting cannot mend it.
        throw new FatalActorError(`the supervisor refused the log subscription: ${message.reason}`);
      case 'events':
        events.deliver(message.batches);
        break;
      case 'events.snapshot':
        events.snapshot(message.topic, message.subscriber);
        break;
      case 'events.refused':
        events.refused(message.topic, message.reason);
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
    metrics.start();
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
