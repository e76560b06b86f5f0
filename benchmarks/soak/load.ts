// What every role's load shares: operations repeated at a steady pace until the soak ends, and a
// tally of what each answered, so that a soak that kept its memory but stopped answering fails too.
import { setTimeout as sleep } from 'node:timers/promises';

export class Tally {
  private readonly done = new Map<string, number>();
  private readonly failures = new Map<string, number>();

  ok(operation: string, count = 1): void {
    this.done.set(operation, (this.done.get(operation) ?? 0) + count);
  }

  /** A failure, kept by operation and reason (reasons are cut short so that a varying one does not flood the report). */
  failed(operation: string, reason: string): void {
    const key = `${operation}: ${reason.slice(0, 160)}`;
    this.failures.set(key, (this.failures.get(key) ?? 0) + 1);
  }

  get failureCount(): number {
    return [...this.failures.values()].reduce((sum, count) => sum + count, 0);
  }

  lines(): string[] {
    return [...[...this.done].map(([operation, count]) => `${operation}: ${count}`), ...[...this.failures].map(([key, count]) => `FAILED ${key} (${count}x)`)];
  }
}

/**
 * Runs `operation` every `intervalMs` (the next one starts on time, or at once when one took longer)
 * until `signal` aborts; a throw is tallied as a failure of `name` and the pace goes on.
 */
export async function every(intervalMs: number, signal: AbortSignal, tally: Tally, name: string, operation: () => Promise<void>): Promise<void> {
  let due = performance.now();
  while (!signal.aborted) {
    try {
      await operation();
    } catch (error) {
      if (signal.aborted) return;
      tally.failed(name, error instanceof Error ? error.message : String(error));
    }
    due += intervalMs;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait, undefined, { signal }).catch(() => undefined);
    else due = performance.now();
  }
}

/** Throws unless `response` has `status`; its body is read either way (an unread body holds its connection). */
export async function expectStatus(response: { status: number; text(): Promise<string> }, status: number): Promise<string> {
  const body = await response.text();
  if (response.status !== status) throw new Error(`HTTP ${response.status} (expected ${status}): ${body.slice(0, 120)}`);
  return body;
}
