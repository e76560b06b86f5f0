// System messages: what the supervisor and every actor say to each other on the worker's own port.
// Actor-specific messages live in actors/<name>/protocol.ts.
import type { MessagePort } from 'node:worker_threads';
import type { LogRecord } from '../log/record.js';
import type { EventBatch } from './topic.js';

/** What an actor reports when it is ready; fronts list the URLs they listen on. */
export interface ReadyInfo {
  urls?: string[];
}

export interface ThreadError {
  name: string;
  message: string;
  stack?: string;
  /** Restarting would fail the same way: stop the process instead (see FatalActorError). */
  fatal?: boolean;
}

export interface ActorHealth {
  uptimeMs: number;
  heapUsedBytes: number;
  /** Share of time the actor's event loop was busy since the previous health check, 0-1. */
  loopUtilization: number;
}

export type SupervisorToActor =
  /** The client end of a link to the peer called `name`; replaces any earlier port for that peer. */
  | { type: 'link'; name: string; port: MessagePort }
  /** The serving end of a link from `from`: the actor exposes its API on `port`. */
  | { type: 'accept'; from: string; port: MessagePort }
  /** The peer `name` stopped or crashed: calls in flight to it fail, later calls wait for a new link. */
  | { type: 'unlink'; name: string }
  /** The backlog one log viewer of this thread asked for. */
  | { type: 'logs.backlog'; id: number; records: LogRecord[] }
  /** New log records, for every viewer of this thread. */
  | { type: 'logs.records'; records: LogRecord[] }
  /** The supervisor refused this thread's log subscription: its spec does not say it reads logs. */
  | { type: 'logs.refused'; id: number; reason: string }
  /** Events on topics this thread subscribed to. */
  | { type: 'events'; batches: EventBatch[] }
  /** A late subscriber of a topic this thread publishes and keeps (topic.ts, keptBy) needs its state. */
  | { type: 'events.snapshot'; topic: string; subscriber: string }
  /** The supervisor refused this thread's subscription to `topic` (topic-policy.ts). */
  | { type: 'events.refused'; topic: string; reason: string }
  | { type: 'health' }
  /** Stop accepting work, finish what is in flight within `graceMs`, then exit 0. */
  | { type: 'stop'; graceMs: number };

export type ActorToSupervisor =
  | { type: 'ready'; info: ReadyInfo }
  | { type: 'log'; record: LogRecord }
  | { type: 'error'; error: ThreadError }
  | { type: 'health'; health: ActorHealth }
  /** Whether the actor can do its work now (its store writable, its account readable); /readyz reads it. */
  | { type: 'readiness'; ready: boolean; reason?: string }
  | { type: 'logs.subscribe'; id: number; backlog: number }
  | { type: 'logs.unsubscribe'; id: number }
  | { type: 'events.publish'; batches: EventBatch[] }
  | { type: 'events.subscribe'; topic: string }
  | { type: 'events.unsubscribe'; topic: string };

/** What a worker receives as `workerData`. */
export interface ActorWorkerData {
  name: string;
  kind: string;
  instance: number;
  /** The role that started the actor: its figures go to that role's fronts. */
  role: string;
  /** How often the thread pushes its metrics; 0 when the host config turned metrics off. */
  metricsIntervalMs: number;
  config: unknown;
  /** Port on which the supervisor exposes SupervisorApi (comlink). */
  supervisorPort: MessagePort;
}
