// The bounds on a front thread's relayed WebSockets: how many one client address and all clients
// together may hold (each holds a backend connection too), and how long one may stay silent both
// ways before it is closed. The idle clock is the proxy's, not uWS's: uWS's idleTimeout counts only
// what the client sends, and a socket the backend keeps busy is not idle.

export interface WebSocketLimitsOptions {
  maxPerClient: number;
  maxTotal: number;
  idleTimeoutMs: number;
}

/** A relayed WebSocket as the limits see it. */
export interface TrackedSocket {
  client: string;
  /** Date.now() of the last message either way. */
  lastActivity: number;
  /** Closes both sides (the idle timeout ran out). */
  closeIdle(): void;
}

export type Admission = { ok: true; release: () => void } | { ok: false; status: 429 | 503; reason: string };

export class WebSocketLimits {
  private readonly perClient = new Map<string, number>();
  private total = 0;
  private readonly tracked = new Set<TrackedSocket>();
  private sweeper: NodeJS.Timeout | undefined;

  constructor(private readonly options: WebSocketLimitsOptions) {}

  get open(): number {
    return this.total;
  }

  /** Counts a new upgrade from `client`, or says why it is refused; `release` uncounts it (once). */
  admit(client: string): Admission {
    const mine = this.perClient.get(client) ?? 0;
    if (mine >= this.options.maxPerClient) return { ok: false, status: 429, reason: `${client} holds ${mine} WebSockets already (websocket_max_per_client)` };
    if (this.total >= this.options.maxTotal) return { ok: false, status: 503, reason: `${this.total} WebSockets open already (websocket_max_total)` };
    this.perClient.set(client, mine + 1);
    this.total++;
    let released = false;
    return {
      ok: true,
      release: () => {
        if (released) return;
        released = true;
        this.total--;
        const left = (this.perClient.get(client) ?? 1) - 1;
        if (left === 0) this.perClient.delete(client);
        else this.perClient.set(client, left);
      },
    };
  }

  /** Watches an open relay for idleness until `untrack`. */
  track(socket: TrackedSocket): () => void {
    this.tracked.add(socket);
    // A check every quarter of the timeout closes an idle socket at most 25% late.
    this.sweeper ??= setInterval(() => this.sweep(), Math.max(250, this.options.idleTimeoutMs / 4));
    return () => {
      this.tracked.delete(socket);
      if (this.tracked.size === 0) {
        clearInterval(this.sweeper);
        this.sweeper = undefined;
      }
    };
  }

  close(): void {
    clearInterval(this.sweeper);
    this.sweeper = undefined;
  }

  private sweep(): void {
    const now = Date.now();
    for (const socket of [...this.tracked]) if (now - socket.lastActivity >= this.options.idleTimeoutMs) socket.closeIdle();
  }
}
