// The supervisor: spawns actors, waits for `ready` with a deadline, links them, restarts a crashed
// one (one-for-one, exponential backoff) and gives up after too many restarts in a window; on stop it
// drains fronts first, then the actors behind them.
//
// uWS keeps a native poll handle in every thread that runs an app; tearing such a thread down from
// outside (Worker.terminate(), or process.exit() in the main thread while it runs) aborts the whole
// process. So fronts always stop themselves (stop message -> close apps -> exit), terminate() is only
// used on actors that are not fronts, and the caller gets the names of any front that would not stop.
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import { OutpostError } from '../errors.js';
import type { JobPool } from '../jobs/pool.js';
import { LogFanout } from '../log/log-fanout.js';
import type { Logger } from '../log/record.js';
import type { SupervisorLog } from '../log/supervisor-log.js';
import { ChangedFamilies } from '../metrics/changed-families.js';
import { withLabels } from '../metrics/family.js';
import { supervisorFamilies } from '../metrics/supervisor-figures.js';
import { atEachPush } from '../metrics/thread-metrics.js';
import { figuresKey, metricsTopic } from '../metrics/topic.js';
import { readinessTopic, roleReadiness, type ActorStatus, type SupervisorStatus } from './actor-status.js';
import { EventRouter } from './event-router.js';
import { Mailbox } from './mailbox.js';
import { unexpectedMessage } from './message.js';
import type { ActorHealth, ActorToSupervisor, ActorWorkerData, ReadyInfo, SupervisorToActor, ThreadError } from './protocol.js';
import { RestartHistory, type RestartOptions } from './restart-policy.js';
import { exposeApi } from './rpc.js';
import type { ActorSpec } from './spec.js';
import type { SupervisorApi } from './supervisor-api.js';
import type { EventBatch, Topic } from './topic.js';
import { TopicPolicy } from './topic-policy.js';

export interface SupervisorOptions {
  restart: RestartOptions;
  readyTimeoutMs: number;
  /** How long fronts get to finish in-flight requests, and actors to flush, on stop. */
  shutdownGraceMs: number;
  log: SupervisorLog;
  jobs: Pick<JobPool, 'runRef'>;
  /** How often every thread, and the supervisor, push metrics to the fronts; 0 turns metrics off. */
  metricsIntervalMs?: number;
}

export interface StartResult {
  urls: string[];
  /** The same URLs with the role each front serves. */
  endpoints: { role: string; url: string }[];
  startupMs: number;
}

export interface StopResult {
  exitCode: number;
  /** Fronts that did not stop within the grace period (see the note at the top of this file). */
  stuckFronts: string[];
}

type SlotState = 'starting' | 'running' | 'backoff' | 'stopping' | 'stopped';

interface ActorSlot {
  spec: ActorSpec;
  state: SlotState;
  worker?: Worker;
  system?: Mailbox<ActorToSupervisor, SupervisorToActor>;
  supervisorPort?: MessagePort;
  history: RestartHistory;
  readyTimer?: NodeJS.Timeout;
  backoffTimer?: NodeJS.Timeout;
  lastError?: ThreadError;
  ready?: ReadyInfo;
  /** When the actor last reported ready (performance.now()). */
  readyAt?: number;
  /** Why the actor says it cannot work now (ActorContext.setReadiness). */
  notReady?: string;
  restarts: number;
  readyWaiters: { resolve: () => void; reject: (error: Error) => void }[];
  exitWaiters: (() => void)[];
  healthWaiters: ((health: ActorHealth) => void)[];
}

export class Supervisor {
  private readonly slots: ActorSlot[];
  private readonly log: Logger;
  private stopping: Promise<StopResult> | undefined;
  private resolveDone!: (result: StopResult) => void;
  /** Settles when the supervisor has stopped, by request or by giving up on an actor. */
  readonly done: Promise<StopResult> = new Promise((resolve) => (this.resolveDone = resolve));
  private readonly slotsByName = new Map<string, ActorSlot>();
  private readonly events: EventRouter;
  private readonly topics: TopicPolicy;
  /** `actor topic` pairs whose refused publish was logged: a publisher that keeps trying is logged once. */
  private readonly refusedPublishes = new Set<string>();
  private readonly logFanout: LogFanout;
  /** Stops the supervisor's own metrics pushes; undefined until they start. */
  private stopMetrics: (() => void) | undefined;
  /** Per role, what the supervisor last pushed of its own families: only changes are pushed again. */
  private readonly metricsSent = new Map<string, ChangedFamilies>();
  private readonly startedAt = new Date();

  constructor(
    specs: readonly ActorSpec[],
    private readonly options: SupervisorOptions,
  ) {
    const names = new Set<string>();
    for (const spec of specs) {
      if (names.has(spec.name)) throw new Error(`two actors are called ${spec.name}`);
      names.add(spec.name);
    }
    for (const spec of specs) {
      for (const link of spec.links) if (!names.has(link)) throw new Error(`actor ${spec.name} links to ${link}, which no role starts`);
    }
    this.slots = specs.map((spec) => ({
      spec,
      state: 'stopped',
      history: new RestartHistory(options.restart),
      restarts: 0,
      readyWaiters: [],
      exitWaiters: [],
      healthWaiters: [],
    }));
    for (const slot of this.slots) this.slotsByName.set(slot.spec.name, slot);
    this.topics = new TopicPolicy(specs);
    this.log = options.log.logger('supervisor');
    const post = (name: string, message: SupervisorToActor) => this.slotsByName.get(name)?.system?.post(message);
    this.events = new EventRouter(
      (name, batches) => post(name, { type: 'events', batches }),
      (publisher, topic, subscriber) => post(publisher, { type: 'events.snapshot', topic, subscriber }),
    );
    this.logFanout = new LogFanout(options.log.ring, {
      backlog: (name, id, records) => post(name, { type: 'logs.backlog', id, records }),
      live: (name, records) => post(name, { type: 'logs.records', records }),
    });
  }

  /** Starts every actor, fronts last; resolves once all are ready. */
  async start(): Promise<StartResult> {
    const startedAt = performance.now();
    this.startMetrics();
    const backs = this.slots.filter((slot) => !slot.spec.front);
    const fronts = this.slots.filter((slot) => slot.spec.front);
    for (const group of [backs, fronts]) {
      await Promise.all(group.map((slot) => this.spawnAndWait(slot)));
    }
    const endpoints = new Map<string, string>();
    for (const slot of fronts) for (const url of slot.ready?.urls ?? []) endpoints.set(url, slot.spec.role);
    const startupMs = Math.round(performance.now() - startedAt);
    this.log.info(`all actors ready in ${startupMs}ms`, { actors: this.slots.length });
    return { urls: [...endpoints.keys()], endpoints: [...endpoints].map(([url, role]) => ({ role, url })), startupMs };
  }

  /** Stops fronts, then the rest in reverse start order; every actor gets `shutdownGraceMs`. */
  stop(exitCode = 0, reason = 'stop requested'): Promise<StopResult> {
    this.stopping ??= this.stopAll(exitCode, reason);
    return this.stopping;
  }

  /** Asks every running actor for its health; an actor that does not answer in time is left out. */
  async health(timeoutMs = 1000): Promise<Record<string, ActorHealth>> {
    const answers = await Promise.all(
      this.slots.map(async (slot) => {
        if (slot.state !== 'running' || slot.system === undefined) return undefined;
        const system = slot.system;
        const health = await new Promise<ActorHealth | undefined>((resolve) => {
          const timer = setTimeout(() => resolve(undefined), timeoutMs);
          slot.healthWaiters.push((value) => {
            clearTimeout(timer);
            resolve(value);
          });
          system.post({ type: 'health' });
        });
        return health === undefined ? undefined : ([slot.spec.name, health] as const);
      }),
    );
    return Object.fromEntries(answers.filter((entry) => entry !== undefined));
  }

  /**
   * Publishes a message from the supervisor itself (a reloaded setting): kept as the topic's latest, so
   * an actor that subscribes or restarts later receives it too.
   */
  publish<Message>(topic: Topic<Message>, message: Message): void {
    this.events.publish('supervisor', [{ topic: topic.name, messages: [message] }]);
  }

  /**
   * Ends actor `name`'s thread at once, as a crash would (Worker.terminate(): no stop message, no
   * flush); the restart policy then applies. For tests that kill actors (src/actor/test-kill.ts).
   * A front is refused: terminating a uWS thread aborts the process (see the top of this file).
   */
  terminateActor(name: string): string | undefined {
    const slot = this.slotsByName.get(name);
    if (slot === undefined) return `no actor ${name}`;
    if (slot.spec.front) return `actor ${name} is a front; terminating its thread would abort the process`;
    if (slot.worker === undefined || slot.state !== 'running') return `actor ${name} is ${slot.state}, not running`;
    slot.lastError = { name: 'Error', message: 'thread terminated by the test kill hook' };
    void slot.worker.terminate();
    return undefined;
  }

  /** Every role with its actors' state, restarts and uptime, and the fronts' URLs (`outpost status`). */
  status(): SupervisorStatus {
    const roles = [...new Set(this.slots.map((slot) => slot.spec.role))].map((name) => {
      const actors = this.roleActors(name);
      return { name, ready: roleReadiness(actors).ready, actors };
    });
    return { pid: process.pid, startedAt: this.startedAt.toISOString(), roles };
  }

  private roleActors(role: string): ActorStatus[] {
    const now = performance.now();
    return this.slots
      .filter((slot) => slot.spec.role === role)
      .map((slot) => ({
        name: slot.spec.name,
        role,
        state: slot.state,
        restarts: slot.restarts,
        ...(slot.state === 'running' && slot.readyAt !== undefined ? { uptimeSeconds: Math.round((now - slot.readyAt) / 100) / 10 } : {}),
        ...(slot.notReady === undefined ? {} : { notReady: slot.notReady }),
        ...(slot.ready?.urls === undefined ? {} : { urls: slot.ready.urls }),
      }));
  }

  /** Tells the role's fronts whether the role is ready (their /readyz), after any change of an actor's state. */
  private publishReadiness(role: string): void {
    this.events.publish('supervisor', [{ topic: readinessTopic(role).name, messages: [roleReadiness(this.roleActors(role))] }]);
  }

  private startMetrics(): void {
    const intervalMs = this.options.metricsIntervalMs ?? 0;
    if (intervalMs <= 0 || this.stopMetrics !== undefined) return;
    const push = () => {
      for (const role of new Set(this.slots.map((slot) => slot.spec.role))) {
        let changes = this.metricsSent.get(role);
        if (changes === undefined) {
          changes = new ChangedFamilies();
          this.metricsSent.set(role, changes);
        }
        const messages = withLabels(changes.changed(supervisorFamilies(this.roleActors(role))), { thread: 'supervisor', role }).map((family) => ({
          thread: 'supervisor',
          family,
        }));
        if (messages.length > 0) this.events.publish('supervisor', [{ topic: metricsTopic(role).name, messages, keys: messages.map(figuresKey) }]);
      }
    };
    push();
    this.stopMetrics = atEachPush(intervalMs, push);
  }

  private spawnAndWait(slot: ActorSlot): Promise<void> {
    const ready = new Promise<void>((resolve, reject) => slot.readyWaiters.push({ resolve, reject }));
    this.spawn(slot);
    return ready;
  }

  private spawn(slot: ActorSlot): void {
    const { spec } = slot;
    const channel = new MessageChannel();
    const supervisorApi: SupervisorApi = { runJob: (job, input) => this.options.jobs.runRef(job, input) };
    exposeApi(supervisorApi, channel.port1);
    const workerData: ActorWorkerData = {
      name: spec.name,
      kind: spec.kind,
      instance: spec.instance,
      role: spec.role,
      metricsIntervalMs: this.options.metricsIntervalMs ?? 0,
      config: spec.config,
      supervisorPort: channel.port2,
    };
    const resourceLimits = spec.youngGenerationMb === undefined ? undefined : { maxYoungGenerationSizeMb: spec.youngGenerationMb };
    const worker = new Worker(spec.entry, { workerData, transferList: [channel.port2], resourceLimits });
    const system = new Mailbox<ActorToSupervisor, SupervisorToActor>(worker);
    Object.assign(slot, { worker, system, supervisorPort: channel.port1, state: 'starting', lastError: undefined, ready: undefined });
    system.listen((message) => this.onActorMessage(slot, message));
    worker.on('error', (error) => {
      slot.lastError ??= { name: error.name, message: error.message };
    });
    worker.on('exit', (code) => this.onExit(slot, worker, code));
    slot.readyTimer = setTimeout(() => this.onReadyTimeout(slot, worker), this.options.readyTimeoutMs);
    for (const other of this.slots) {
      if (other === slot || !this.isAlive(other)) continue;
      if (spec.links.includes(other.spec.name)) this.link(slot, other);
      if (other.spec.links.includes(spec.name)) this.link(other, slot);
    }
  }

  private link(client: ActorSlot, server: ActorSlot): void {
    const channel = new MessageChannel();
    client.system?.post({ type: 'link', name: server.spec.name, port: channel.port1 }, [channel.port1]);
    server.system?.post({ type: 'accept', from: client.spec.name, port: channel.port2 }, [channel.port2]);
  }

  private isAlive(slot: ActorSlot): boolean {
    return slot.state === 'starting' || slot.state === 'running';
  }

  private onActorMessage(slot: ActorSlot, message: ActorToSupervisor): void {
    switch (message.type) {
      case 'ready':
        clearTimeout(slot.readyTimer);
        slot.state = slot.state === 'starting' ? 'running' : slot.state;
        slot.ready = message.info;
        slot.readyAt = performance.now();
        this.log.debug(`actor ${slot.spec.name} ready`);
        this.publishReadiness(slot.spec.role);
        for (const waiter of slot.readyWaiters.splice(0)) waiter.resolve();
        break;
      case 'log':
        this.options.log.write(message.record);
        break;
      case 'error':
        slot.lastError = message.error;
        break;
      case 'readiness':
        slot.notReady = message.ready ? undefined : (message.reason ?? 'not ready');
        this.publishReadiness(slot.spec.role);
        break;
      case 'health':
        for (const waiter of slot.healthWaiters.splice(0)) waiter(message.health);
        break;
      case 'logs.subscribe':
        this.subscribeLogs(slot, message.id, message.backlog);
        break;
      case 'logs.unsubscribe':
        this.logFanout.unsubscribe(slot.spec.name, message.id);
        break;
      case 'events.publish':
        this.events.publish(slot.spec.name, this.allowedBatches(slot, message.batches));
        break;
      case 'events.subscribe':
        this.subscribe(slot, message.topic);
        break;
      case 'events.unsubscribe':
        this.events.unsubscribe(slot.spec.name, message.topic);
        break;
      default:
        unexpectedMessage('supervisor', message);
    }
  }

  private subscribeLogs(slot: ActorSlot, id: number, backlog: number): void {
    const { name, role, readsLogs } = slot.spec;
    if (readsLogs) {
      this.logFanout.subscribe(name, id, backlog);
      return;
    }
    const reason = `actor ${name} (role ${role}) does not declare that it reads the log ring`;
    this.log.warn(`refused a log subscription: ${reason}`, { actor: name });
    slot.system?.post({ type: 'logs.refused', id, reason });
  }

  private subscribe(slot: ActorSlot, topic: string): void {
    const { name, role } = slot.spec;
    const refusal = this.topics.refuseSubscribe(slot.spec, topic);
    if (refusal === undefined) {
      this.events.subscribe(name, topic);
      return;
    }
    this.log.warn(`refused a subscription of actor ${name} (role ${role}) to topic ${topic}: ${refusal}`, { actor: name, topic });
    slot.system?.post({ type: 'events.refused', topic, reason: refusal });
  }

  /** The batches `slot` may publish; the others are dropped and logged. */
  private allowedBatches(slot: ActorSlot, batches: EventBatch[]): EventBatch[] {
    const { name, role } = slot.spec;
    return batches.filter(({ topic }) => {
      const refusal = this.topics.refusePublish(slot.spec, topic);
      if (refusal === undefined) return true;
      const pair = `${name} ${topic}`;
      if (!this.refusedPublishes.has(pair)) {
        this.refusedPublishes.add(pair);
        this.log.warn(`refused a publish of actor ${name} (role ${role}) on topic ${topic}: ${refusal}`, { actor: name, topic });
      }
      return false;
    });
  }

  private onReadyTimeout(slot: ActorSlot, worker: Worker): void {
    if (slot.worker !== worker || slot.state !== 'starting') return;
    slot.lastError = { name: 'Error', message: `did not report ready within ${this.options.readyTimeoutMs}ms` };
    void worker.terminate();
  }

  private onExit(slot: ActorSlot, worker: Worker, code: number): void {
    if (slot.worker !== worker) return;
    clearTimeout(slot.readyTimer);
    slot.supervisorPort?.close();
    slot.worker = undefined;
    slot.system = undefined;
    this.logFanout.dropThread(slot.spec.name);
    this.events.dropSubscriber(slot.spec.name);
    for (const other of this.slots) {
      if (other !== slot && (other.spec.links.includes(slot.spec.name) || slot.spec.links.includes(other.spec.name))) {
        other.system?.post({ type: 'unlink', name: slot.spec.name });
      }
    }
    const wasStopping = slot.state === 'stopping';
    slot.state = 'stopped';
    slot.readyAt = undefined;
    slot.notReady = undefined;
    for (const waiter of slot.exitWaiters.splice(0)) waiter();
    if (wasStopping || this.stopping !== undefined) return;
    this.onCrash(slot, code);
  }

  private onCrash(slot: ActorSlot, code: number): void {
    const { spec } = slot;
    if (slot.lastError?.fatal === true) {
      const message = `actor ${spec.name} cannot run: ${slot.lastError.message}`;
      this.log.error(message);
      const error = new OutpostError('ERR_ACTOR_UNAVAILABLE', message);
      for (const waiter of slot.readyWaiters.splice(0)) waiter.reject(error);
      void this.stop(1, `role ${spec.role} cannot run`);
      return;
    }
    const cause = slot.lastError === undefined ? `exit code ${code}` : slot.lastError.message;
    this.log.error(
      `actor ${spec.name} crashed: ${cause}`,
      slot.lastError?.stack === undefined ? { exitCode: code } : { exitCode: code, stack: slot.lastError.stack },
    );
    const decision = slot.history.onCrash(Date.now());
    if (decision.action === 'give-up') {
      const windowSeconds = this.options.restart.windowMs / 1000;
      const message = `actor ${spec.name} crashed ${decision.restartsInWindow + 1} times within ${windowSeconds}s; giving up and stopping role ${spec.role}`;
      this.log.error(message);
      const error = new OutpostError('ERR_ACTOR_UNAVAILABLE', message);
      for (const waiter of slot.readyWaiters.splice(0)) waiter.reject(error);
      void this.stop(1, message);
      return;
    }
    slot.state = 'backoff';
    slot.restarts++;
    this.publishReadiness(spec.role);
    this.log.warn(`restarting actor ${spec.name} in ${decision.delayMs}ms`, { restartsInWindow: decision.restartsInWindow });
    slot.backoffTimer = setTimeout(() => {
      if (slot.state === 'backoff') this.spawn(slot);
    }, decision.delayMs);
  }

  private async stopAll(exitCode: number, reason: string): Promise<StopResult> {
    this.log.info(`stopping: ${reason}`);
    this.stopMetrics?.();
    const fronts = this.slots.filter((slot) => slot.spec.front);
    const backs = this.slots.filter((slot) => !slot.spec.front).reverse();
    const stuckFronts = await this.stopGroup(fronts);
    for (const slot of backs) {
      const stuck = await this.stopGroup([slot]);
      for (const name of stuck) {
        this.log.error(`actor ${name} did not stop within ${this.options.shutdownGraceMs}ms; terminating it`);
        const worker = slot.worker;
        if (worker !== undefined) await worker.terminate();
      }
    }
    for (const name of stuckFronts) this.log.error(`front ${name} did not stop within ${this.options.shutdownGraceMs}ms`);
    for (const slot of this.slots) for (const waiter of slot.readyWaiters.splice(0)) waiter.reject(new OutpostError('ERR_UNAVAILABLE', 'stopping'));
    this.logFanout.close();
    this.log.info('stopped', { exitCode });
    const result = { exitCode, stuckFronts };
    this.resolveDone(result);
    return result;
  }

  /** Asks each actor of the group to stop and waits; returns the names of those still running after the grace period. */
  private async stopGroup(group: ActorSlot[]): Promise<string[]> {
    const graceMs = this.options.shutdownGraceMs;
    const exits = group.map((slot) => {
      clearTimeout(slot.backoffTimer);
      if (slot.worker === undefined) {
        slot.state = 'stopped';
        return Promise.resolve(true);
      }
      slot.state = 'stopping';
      const exited = new Promise<boolean>((resolve) => slot.exitWaiters.push(() => resolve(true)));
      slot.system?.post({ type: 'stop', graceMs });
      // The actor's own drain is bounded by graceMs; the margin covers its exit.
      return Promise.race([exited, delay(graceMs + 1000).then(() => false)]);
    });
    const results = await Promise.all(exits);
    return group.filter((_slot, index) => !results[index]).map((slot) => slot.spec.name);
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
