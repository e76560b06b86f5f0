// One write for every change made before it starts: a journal changed ten times while its last write
// runs writes once more, not ten times, and each change's promise resolves when a write holding it
// has landed. Writes never overlap, so an older text never replaces a newer one.
export class GroupCommit {
  /** The last write started; the next one waits for it. */
  private writing: Promise<void> = Promise.resolve();
  /** A write not started yet, shared by every change made before it starts. */
  private queued: Promise<void> | undefined;

  /** `write` runs after the write in progress, once for every call made until it starts. */
  schedule(write: () => Promise<void>): Promise<void> {
    this.queued ??= this.writing.then(() => {
      this.queued = undefined;
      return write();
    });
    this.writing = this.queued.catch(() => {});
    return this.queued;
  }

  /** Resolves when every write scheduled so far has settled (for shutdown). */
  settled(): Promise<void> {
    return (this.queued ?? this.writing).catch(() => {});
  }
}
