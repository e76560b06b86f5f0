// Several certhub servers for one agent (`-s A -s B`, a list in `server`): every node of a certhub
// serves fetches, so an exchange goes to the server that answered last and moves on, in the list's
// order, when that one cannot answer: no connection, no complete answer in time, a failed TLS
// handshake, or a 5xx. Any other answer, a 4xx above all (a refused token is an answer, not an
// outage), is the answer. The agent stays with the server that answered (no ping-pong); once every
// server failed, the exchange fails as one server's failure does (the caller backs off) and the
// next starts again at the top of the list. With one server, nothing differs from a single URL.
import { CertificateFetchError, type FetchFailureKind } from './fetch-failure.js';

/** A failure that moves the exchange on to the next server. */
const movingKinds: ReadonlySet<FetchFailureKind> = new Set(['unreachable', 'no-answer', 'tls', 'server-error']);

/** One server that could not answer, and why, in a few words. */
export interface ServerFailure {
  server: URL;
  reason: string;
}

/** Another server answered than the one the agent used: which, for what, after which failed. */
export interface ServerMove {
  domain: string;
  /** What the exchange did, as a line says it: `fetched from`, `reported to`. */
  action: string;
  server: URL;
  failed: readonly ServerFailure[];
}

export interface ExchangeLabel {
  domain: string;
  action: string;
}

/** How an answer is judged: the reason it moves on (a 5xx: `HTTP 503`), or undefined when it is the answer. */
export type AnswerJudge<T> = (answer: T) => string | undefined;

export class CerthubServers {
  /** The index of the server the next exchange tries first: the top of the list, or the one that answered last. */
  private current = 0;
  /** The index of the server that answered last (the first server before any did): another answering is a move. */
  private answered = 0;

  constructor(
    readonly urls: readonly URL[],
    private readonly onMove?: (move: ServerMove) => void,
  ) {
    if (urls.length === 0) throw new Error('CerthubServers needs at least one server');
  }

  /** The server the next exchange tries first. */
  get preferred(): URL {
    return this.urls[this.current] ?? (this.urls[0] as URL);
  }

  /**
   * Runs `attempt` against the preferred server, then each next one while it fails in a way that moves
   * on; resolves with the answer and the server that gave it. `signal`: once aborted, a failure is
   * the caller's, not the server's, and nothing moves.
   */
  async exchange<T>(
    label: ExchangeLabel,
    attempt: (server: URL) => Promise<T>,
    judge: AnswerJudge<T>,
    signal?: AbortSignal,
  ): Promise<{ answer: T; server: URL }> {
    const count = this.urls.length;
    const start = this.current;
    const failed: ServerFailure[] = [];
    let lastKind: FetchFailureKind = 'unreachable';
    for (let step = 0; step < count; step++) {
      const index = (start + step) % count;
      const server = this.urls[index] as URL;
      let answer: T;
      try {
        answer = await attempt(server);
      } catch (error) {
        if (count === 1 || signal?.aborted === true || !(error instanceof CertificateFetchError) || !movingKinds.has(error.kind)) throw error;
        failed.push({ server, reason: failureReason(error, server) });
        lastKind = error.kind;
        continue;
      }
      const reason = count === 1 ? undefined : judge(answer);
      if (reason === undefined) {
        this.answeredBy(index, label, failed);
        return { answer, server };
      }
      failed.push({ server, reason });
      lastKind = 'server-error';
    }
    // Every server failed: the next exchange tries the list from its top again.
    this.current = 0;
    throw new CertificateFetchError(
      lastKind,
      `no certhub server answered for ${label.domain}: ${failed.map(({ server, reason }) => `${server.origin}: ${reason}`).join('; ')}`,
    );
  }

  private answeredBy(index: number, label: ExchangeLabel, failed: readonly ServerFailure[]): void {
    this.current = index;
    if (index === this.answered) return;
    this.answered = index;
    this.onMove?.({ ...label, server: this.urls[index] as URL, failed });
  }
}

/** A move as a log line: `app.example.net: fetched from https://b:8443 after https://a:8443 failed: connection refused`. */
export function serverMoveLine(move: ServerMove): string {
  const failures = move.failed.map(({ server, reason }) => `${server.origin} failed: ${reason}`).join(', ');
  return `${move.domain}: ${move.action} ${move.server.origin}${failures === '' ? '' : ` after ${failures}`}`;
}

/** A failure's message without the server's name, which the line around it gives: `connection refused`. */
export function failureReason(error: CertificateFetchError, server: URL): string {
  const origin = server.origin;
  return error.message
    .replace(`cannot reach ${origin}: `, '')
    .replace(`TLS with ${origin} failed: `, 'TLS: ')
    .replace(`${origin} `, '')
    .replace(' (is certhub running there?)', '');
}

/** The servers of every target, one choice per list: targets given one list share its stickiness. */
export function serverChoices(lists: ReadonlyArray<readonly URL[]>, onMove?: (move: ServerMove) => void): (urls: readonly URL[]) => CerthubServers {
  const byList = new Map<string, CerthubServers>();
  for (const urls of lists) {
    const key = listKey(urls);
    if (!byList.has(key)) byList.set(key, new CerthubServers(urls, onMove));
  }
  return (urls) => {
    const key = listKey(urls);
    let found = byList.get(key);
    if (found === undefined) {
      found = new CerthubServers(urls, onMove);
      byList.set(key, found);
    }
    return found;
  };
}

function listKey(urls: readonly URL[]): string {
  return urls.map((url) => url.href).join(' ');
}
