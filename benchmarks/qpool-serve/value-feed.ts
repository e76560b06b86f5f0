// What a serve process under measure receives its values from: its receive command is `cat` on a
// FIFO, and the benchmark writes value lines into the FIFO as the diode tool would print them. The
// benchmark holds the FIFO open for reading and writing, so neither side's open waits for the other
// and cat never meets the end of its input: it stays, as auto-stream-recv does, and the diode
// receiver hands each arrival to the pool as it comes. What is measured is serve alone, with no
// stand-in for the diode's own work.
import { execFile } from 'node:child_process';
import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export class ValueFeed {
  private constructor(
    private readonly path: string,
    private readonly fifo: FileHandle,
  ) {}

  /** A FIFO named `values` in `dir` (mode 0600), held open. */
  static async create(dir: string): Promise<ValueFeed> {
    const path = join(dir, 'values');
    await run('mkfifo', ['-m', '600', path]);
    return new ValueFeed(path, await open(path, constants.O_RDWR));
  }

  /** The `server.receive_command` that reads the feed. */
  receiveCommand(): string[] {
    return ['cat', this.path];
  }

  /** Resolves once cat has taken all of `lines` (a FIFO holds only 64 KiB). */
  async send(lines: string): Promise<void> {
    await this.fifo.writeFile(lines);
  }

  async close(): Promise<void> {
    await this.fifo.close();
  }
}
