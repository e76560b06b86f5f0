// Asks again a fixed time after each answer (not on a fixed clock), so a slow server never has two
// polls of the same page in flight, and a failed poll is simply followed by the next one.

export interface PollHandlers<T> {
  result(value: T): void;
  failure(error: Error): void;
}

export function pollEvery<T>(intervalMs: number, read: () => Promise<T>, handlers: PollHandlers<T>): void {
  const once = async () => {
    try {
      handlers.result(await read());
    } catch (error) {
      handlers.failure(error instanceof Error ? error : new Error(String(error)));
    }
    setTimeout(() => void once(), intervalMs);
  };
  void once();
}
