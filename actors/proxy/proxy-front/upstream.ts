// A route's backends in one front thread: a BackendPool each, which of them are up, and the choice of
// one for each request by the route's policy. A backend is out of use while active checks mark it
// down (health-check.ts) or, with two backends or more, while it rests after failed requests (as
// nginx's max_fails and fail_timeout). A request whose connection never reached its backend, and that
// has no body, is tried once on each other backend that is up: nothing of it was delivered.
import { isIP } from 'node:net';
import type { Logger } from '../../../src/log/record.js';
import { BackendError, BackendPool, nothingToWithdraw, type BackendRequest, type ExchangeController, type ExchangeHandler } from './backend-pool.js';
import { parseBackendTarget, type BackendTarget } from './backend-target.js';
import { HealthCheck } from './health-check.js';
import type { ResponseHead } from './response-parser.js';
import type { UpstreamSettings } from './protocol.js';

export interface UpstreamOptions {
  domain: string;
  backends: readonly string[];
  settings: UpstreamSettings;
  connections: number;
  headersTimeoutMs: number;
  maxQueued: number;
  log: Logger;
}

/** One backend of the route. */
export class Member {
  readonly pool: BackendPool;
  /** Requests sent to it and not yet answered in full. */
  inFlight = 0;
  /** Marked down by the active checks. */
  down = false;
  /** Date.now() until which passive checks keep it out of use. */
  restingUntil = 0;
  /** Date.now() of its recent failures, oldest first, within the passive window. */
  private readonly failures: number[] = [];

  /** How it is verified when it is https:// (the servername defaults to its host name). */
  readonly tls: UpstreamSettings['tls'];

  constructor(
    readonly target: BackendTarget,
    options: UpstreamOptions,
  ) {
    const { tls } = options.settings;
    this.tls = { ...tls, ...(tls.servername === undefined && isIP(target.host) === 0 ? { servername: target.host } : {}) };
    this.pool = new BackendPool({
      host: target.host,
      port: target.port,
      label: target.label,
      connections: options.connections,
      headersTimeoutMs: options.headersTimeoutMs,
      maxQueued: options.maxQueued,
      ...(target.scheme === 'https' ? { tls: this.tls } : {}),
    });
  }

  isUp(now: number): boolean {
    return !this.down && this.restingUntil <= now;
  }

  /** Counts a failed request; true when that puts it to rest. */
  failed(now: number, passive: UpstreamSettings['passive']): boolean {
    while (this.failures.length > 0 && this.failures[0]! <= now - passive.failWindowMs) this.failures.shift();
    this.failures.push(now);
    if (this.failures.length < passive.maxFailures) return false;
    this.failures.length = 0;
    this.restingUntil = now + passive.restMs;
    return true;
  }
}

export class Upstream {
  readonly members: Member[];
  private next = 0;
  private readonly checks: HealthCheck[] = [];

  constructor(private readonly options: UpstreamOptions) {
    this.members = options.backends.map((text) => {
      const target = parseBackendTarget(text);
      if (target === undefined) throw new Error(`not a backend: ${text}`);
      return new Member(target, options);
    });
    const active = options.settings.healthCheck;
    if (active !== undefined) {
      for (const member of this.members)
        this.checks.push(new HealthCheck(member, active, options.settings.tls, (up, reason) => this.changed(member, up, reason)));
    }
  }

  /** The backends as written, for logs. */
  get label(): string {
    return this.members.map((member) => member.target.label).join(', ');
  }

  /** The member the next request goes to, or undefined when none is up; `tried` are left out. */
  pick(tried?: ReadonlySet<Member>): Member | undefined {
    const now = Date.now();
    const { members } = this;
    if (members.length === 1) {
      const only = members[0]!;
      // A lone backend is never rested for failed requests (nginx's rule too): only an active check takes it out.
      return only.down || tried?.has(only) === true ? undefined : only;
    }
    const usable = (member: Member) => member.isUp(now) && tried?.has(member) !== true;
    switch (this.options.settings.policy) {
      case 'first_available':
        return members.find(usable);
      case 'least_connections': {
        let best: Member | undefined;
        for (let step = 0; step < members.length; step++) {
          const member = members[(this.next + step) % members.length]!;
          if (usable(member) && (best === undefined || member.inFlight < best.inFlight)) best = member;
        }
        this.next = (this.next + 1) % members.length;
        return best;
      }
      case 'round_robin':
        for (let step = 0; step < members.length; step++) {
          const member = members[(this.next + step) % members.length]!;
          if (!usable(member)) continue;
          this.next = (this.next + step + 1) % members.length;
          return member;
        }
        return undefined;
      default:
        throw new Error(`unexpected policy ${JSON.stringify(this.options.settings.policy satisfies never)}`);
    }
  }

  /** As BackendPool.dispatch, on a member the policy picks; no member up is a `down` error at once. */
  dispatch(request: BackendRequest, handler: ExchangeHandler): Withdrawable {
    const member = this.pick();
    if (member === undefined) {
      handler.onResponseError(unstarted, new BackendError(`no backend of ${this.options.domain} is up (${this.label})`, 'failed', { noneUp: true }));
      return notQueued;
    }
    const exchange = new MemberExchange(this, member, request, handler);
    exchange.start();
    return exchange;
  }

  /** A request's outcome on `member`: failures count toward its rest. */
  settled(member: Member, error: BackendError | undefined): void {
    if (error === undefined || error.kind === 'busy' || error.details.clientGone === true || error.details.noneUp === true) return;
    if (this.members.length < 2) return;
    const passive = this.options.settings.passive;
    if (member.failed(Date.now(), passive))
      this.options.log.warn('backend rested after failed requests', {
        domain: this.options.domain,
        backend: member.target.label,
        failures: passive.maxFailures,
        rest_seconds: passive.restMs / 1000,
        error: error.message,
      });
  }

  private changed(member: Member, up: boolean, reason: string): void {
    member.down = !up;
    const fields = { domain: this.options.domain, backend: member.target.label, reason };
    if (up) this.options.log.info('backend up: its health checks pass again', fields);
    else this.options.log.warn('backend down: its health checks fail', fields);
  }

  retire(): void {
    for (const check of this.checks) check.stop();
    for (const member of this.members) member.pool.retire();
  }

  close(): void {
    for (const check of this.checks) check.stop();
    for (const member of this.members) member.pool.close();
  }
}

const unstarted: ExchangeController = { pause: () => {}, resume: () => {}, abort: () => {} };

/** A request dispatched to the route: `withdraw` takes it out of its pool's queue while it waits for a connection. */
export interface Withdrawable {
  withdraw(): void;
}

const notQueued: Withdrawable = { withdraw: nothingToWithdraw };

/**
 * One request on one member: counts it in flight, reports its outcome, and tries another member when
 * it never reached this one. Its fields hold no function made for it: a closure (or an arrow function
 * as a field's initial value, which the bundle names with a property definition) per request was a
 * measurable part of a proxied request's CPU time.
 */
class MemberExchange implements ExchangeHandler, Withdrawable {
  private tried: Set<Member> | undefined;
  private withdrawFromPool: () => void = nothingToWithdraw;

  constructor(
    private readonly upstream: Upstream,
    private member: Member,
    private readonly request: BackendRequest,
    private readonly handler: ExchangeHandler,
  ) {}

  start(): void {
    this.member.inFlight++;
    this.withdrawFromPool = this.member.pool.dispatch(this.request, this);
  }

  withdraw(): void {
    this.withdrawFromPool();
  }

  onRequestStart(controller: ExchangeController, backend: string): void {
    this.handler.onRequestStart(controller, backend);
  }

  onResponseStart(controller: ExchangeController, head: ResponseHead): void {
    this.handler.onResponseStart(controller, head);
  }

  onResponseData(controller: ExchangeController, chunk: Buffer): void {
    this.handler.onResponseData(controller, chunk);
  }

  onResponseEnd(controller: ExchangeController): void {
    this.member.inFlight--;
    this.upstream.settled(this.member, undefined);
    this.handler.onResponseEnd(controller);
  }

  onResponseError(controller: ExchangeController, error: BackendError): void {
    this.member.inFlight--;
    this.upstream.settled(this.member, error);
    if (error.details.unreached === true && this.request.body === null) {
      this.tried ??= new Set();
      this.tried.add(this.member);
      const next = this.upstream.pick(this.tried);
      if (next !== undefined) {
        this.member = next;
        this.start();
        return;
      }
    }
    this.handler.onResponseError(controller, error);
  }
}
