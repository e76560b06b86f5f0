// Group commit for changes to one zone: while one change is being written, the ones that arrive wait
// and are then written together, in one request. PowerDNS applies a PATCH's RRsets in one transaction,
// and its sqlite3 backend refuses concurrent writes ("database is locked"), so 20 orders starting at
// once cost a couple of PATCHes instead of 20 queued ones.

/** Most changes written in one request. */
const maxBatch = 100;

export class GroupCommit<Change> {
  private waiting: { change: Change; resolve: () => void; reject: (error: unknown) => void }[] = [];
  private writing = false;

  /**
   * `write` writes every change it is given, all or none. `isRefusal` tells a failure caused by a
   * change itself (then the changes of the batch are written one by one, so only the bad one fails)
   * from one that would fail them all (unreachable server, wrong key).
   */
  constructor(
    private readonly write: (changes: Change[]) => Promise<void>,
    private readonly isRefusal: (error: unknown) => boolean,
  ) {}

  submit(change: Change): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ change, resolve, reject });
      void this.drain();
    });
  }

  private async drain(): Promise<void> {
    if (this.writing) return;
    this.writing = true;
    while (this.waiting.length > 0) {
      const batch = this.waiting.splice(0, maxBatch);
      try {
        await this.write(batch.map((entry) => entry.change));
        for (const entry of batch) entry.resolve();
      } catch (error) {
        if (batch.length === 1 || !this.isRefusal(error)) {
          for (const entry of batch) entry.reject(error);
          continue;
        }
        for (const entry of batch) await this.write([entry.change]).then(entry.resolve, entry.reject);
      }
    }
    this.writing = false;
  }
}
