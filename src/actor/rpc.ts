// Typed request/response between threads: comlink over a MessagePort. comlink serialises a thrown
// Error as a plain Error and drops its `code`, so the serving side throws WireError objects instead
// and the calling side rebuilds them (see ../errors.ts).
import * as Comlink from 'comlink';
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
import type { MessagePort } from 'node:worker_threads';
import { OutpostError, toOutpostError } from '../errors.js';
import type { ActorApi } from './kind.js';

export type Remote<Api> = Comlink.Remote<Api>;

/** Serves `api` on `port`; every error leaves as `{ code, message }`. */
export function exposeApi(api: ActorApi, port: MessagePort): void {
  const guarded: Record<string, unknown> = {};
  for (const [name, member] of Object.entries(api)) {
    if (typeof member !== 'function') continue;
    guarded[name] = async (...args: unknown[]) => {
      try {
        return await (member as (...a: unknown[]) => unknown).apply(api, args);
      } catch (error) {
        // comlink keeps only the name, message and stack of a thrown Error; a plain object crosses whole.
        // eslint-disable-next-line @typescript-eslint/only-throw-error
        throw toOutpostError(error).toWire();
      }
    };
  }
  Comlink.expose(guarded, nodeEndpoint(port));
}

export function remoteApi<Api>(port: MessagePort): Remote<Api> {
  return Comlink.wrap<Api>(nodeEndpoint(port));
}

interface Waiter {
  resolve: () => void;
  timer: NodeJS.Timeout;
  reject: (error: OutpostError) => void;
}

export interface CallOptions {
  /** Milliseconds the peer has to answer, from when the call is sent; past them it fails with ERR_TIMEOUT. */
  timeoutMs?: number;
}

/**
 * The calling end of a link to a peer actor. The supervisor hands it a new port whenever the peer
 * (re)starts and tells it when the peer goes away: calls in flight then fail with
 * ERR_ACTOR_UNAVAILABLE instead of hanging, and new calls wait (up to `connectTimeoutMs`) for the
 * next port. A peer that is there but does not answer (stuck in a loop, a lost message) fails the
 * call with ERR_TIMEOUT after `callTimeoutMs`, so a request never waits on another thread forever.
 */
export class PeerLink<Api> {
  private port: MessagePort | undefined;
  private remote: Remote<Api> | undefined;
  /**
   * Calls in flight on the current port, failed when it goes. Each call removes itself when it
   * settles: racing every call against one long-lived "lost" promise would leave a reaction on it
   * per call, a leak in a process that runs for months.
   */
  private readonly inFlight = new Set<(error: OutpostError) => void>();
  private readonly waiters = new Set<Waiter>();
  private readonly attachListeners = new Set<() => void>();

  constructor(
    readonly peer: string,
    private readonly connectTimeoutMs = 5000,
    private readonly callTimeoutMs = 30_000,
  ) {}

  get connected(): boolean {
    return this.remote !== undefined;
  }

  attach(port: MessagePort): void {
    this.detach('replaced by a new link');
    this.port = port;
    this.remote = remoteApi<Api>(port);
    for (const waiter of this.waiters) {
      clearTimeout(waiter.timer);
      waiter.resolve();
    }
    this.waiters.clear();
    for (const listener of this.attachListeners) listener();
  }

  /**
   * Runs `listener` each time the peer (re)starts and the link reaches it: state the peer keeps only
   * in memory (who watches a stream) is told again to the new run. Returns the unsubscribe.
   */
  onAttach(listener: () => void): () => void {
    this.attachListeners.add(listener);
    return () => this.attachListeners.delete(listener);
  }

  detach(reason = 'stopped'): void {
    if (this.port === undefined) return;
    const error = new OutpostError('ERR_ACTOR_UNAVAILABLE', `actor ${this.peer} ${reason}`);
    for (const fail of this.inFlight) fail(error);
    this.inFlight.clear();
    this.port.close();
    this.port = undefined;
    this.remote = undefined;
  }

  /**
   * Runs `call` against the peer's API; fails with a coded error when the peer is or goes away, or
   * does not answer within the deadline (`options.timeoutMs`, else the link's `callTimeoutMs`).
   */
  async call<Result>(call: (api: Remote<Api>) => Promise<Result>, options: CallOptions = {}): Promise<Result> {
    if (this.remote === undefined) await this.waitForLink();
    const remote = this.remote;
    if (remote === undefined) throw new OutpostError('ERR_ACTOR_UNAVAILABLE', `actor ${this.peer} is not linked`);
    const timeoutMs = options.timeoutMs ?? this.callTimeoutMs;
    return new Promise<Result>((resolve, reject) => {
      const settle = () => {
        clearTimeout(deadline);
        this.inFlight.delete(fail);
      };
      const fail = (error: OutpostError) => {
        settle();
        reject(error);
      };
      // An answer that comes after the deadline is dropped: the promise has settled already.
      const deadline = setTimeout(() => fail(new OutpostError('ERR_TIMEOUT', `actor ${this.peer} did not answer within ${timeoutMs}ms`)), timeoutMs);
      this.inFlight.add(fail);
      call(remote).then(
        (result) => {
          settle();
          resolve(result);
        },
        (error: unknown) => fail(toOutpostError(error)),
      );
    });
  }

  /** Ends the link for good: pending and waiting calls fail. */
  close(): void {
    this.detach();
    for (const waiter of this.waiters) {
      clearTimeout(waiter.timer);
      waiter.reject(new OutpostError('ERR_ACTOR_UNAVAILABLE', `actor ${this.peer} link closed`));
    }
    this.waiters.clear();
  }

  private waitForLink(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        resolve,
        reject,
        timer: setTimeout(() => {
          this.waiters.delete(waiter);
          reject(new OutpostError('ERR_ACTOR_UNAVAILABLE', `actor ${this.peer} did not come up within ${this.connectTimeoutMs}ms`));
        }, this.connectTimeoutMs),
      };
      this.waiters.add(waiter);
    });
  }
}
