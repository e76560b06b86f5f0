// Operations on one key run one after the other, in call order, each after the one before it has
// settled (resolved or rejected): an older write never lands after a newer one, and a failed write
// does not stop the next. Different keys run side by side.
export class KeyedSerializer {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, operation: () => Promise<T>): Promise<T> {
    const next = (this.tails.get(key) ?? Promise.resolve()).then(operation, operation);
    const tail = next.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return next;
  }

  /** Resolves when every operation started so far has settled (for shutdown). */
  async settled(): Promise<void> {
    await Promise.all([...this.tails.values()]);
  }
}
