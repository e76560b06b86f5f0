// Typed request/response between threads: comlink over a MessagePort. comlink serialises a thrown
// Error as a plain Error and drops its `code`, so the serving side throws WireError objects instead
// and the calling side rebuilds them (see ../errors.ts).
import * as Comlink from 'comlink';
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
import type { MessagePort } from 'node:worker_threads';
import { OutpostError, toOutpostError } from '../errors.js';

export type Remote<Api> = Comlink.Remote<Api>;

/** An API an actor offers: an object whose members are async functions taking structured-cloneable values. */
export type ActorApi = object;

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

/**
 * The calling end of a link to a peer actor. The supervisor hands it a new port whenever the peer
 * (re)starts and tells it when the peer goes away: calls in flight then fail with
 * ERR_ACTOR_UNAVAILABLE instead of hanging, and new calls wait (up to `connectTimeoutMs`) for the
 * next port.
 */
export class PeerLink<Api> {
  private port: MessagePort | undefined;
  private remote: Remote<Api> | undefined;
  private lost: Promise<never> = new Promise<never>(() => {});
  private loseCurrent: (error: OutpostError) => void = () => {};
  private readonly waiters = new Set<Waiter>();

  constructor(
    readonly peer: string,
    private readonly connectTimeoutMs = 5000,
  ) {}

  get connected(): boolean {
    return this.remote !== undefined;
  }

  attach(port: MessagePort): void {
    this.detach('replaced by a new link');
    this.port = port;
    this.remote = remoteApi<Api>(port);
    this.lost = new Promise<never>((_resolve, reject) => {
      this.loseCurrent = reject;
    });
    // Nobody may be awaiting `lost`; keep an unobserved rejection from being reported as a crash.
    this.lost.catch(() => {});
    for (const waiter of this.waiters) {
      clearTimeout(waiter.timer);
      waiter.resolve();
    }
    this.waiters.clear();
  }

  detach(reason = 'stopped'): void {
    if (this.port === undefined) return;
    this.loseCurrent(new OutpostError('ERR_ACTOR_UNAVAILABLE', `actor ${this.peer} ${reason}`));
    this.port.close();
    this.port = undefined;
    this.remote = undefined;
  }

  /** Runs `call` against the peer's API; fails with a coded error when the peer is or goes away. */
  async call<Result>(call: (api: Remote<Api>) => Promise<Result>): Promise<Result> {
    if (this.remote === undefined) await this.waitForLink();
    const remote = this.remote;
    if (remote === undefined) throw new OutpostError('ERR_ACTOR_UNAVAILABLE', `actor ${this.peer} is not linked`);
    try {
      return await Promise.race([call(remote), this.lost]);
    } catch (error) {
      throw toOutpostError(error);
    }
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
