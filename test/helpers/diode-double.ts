// A diode double for one test: its own spool directory, the commands a qpool config runs to send and
// receive through it, and a view of what is in flight. The tool finds the spool through the
// environment (the command shape must stay the real tool's). qpool gives its commands only PATH,
// HOME and the locale of its own environment, so the commands a config runs set the spool the way an
// operator passes a variable to a diode tool: `env DIODE_DOUBLE_DIR=... <tool> ...`. Processes that
// run the bare tool (`DiodeDouble.tool`) are started with `env: double.env`.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { channelDir, peekQueue, readSendLog, writeChunk, writeControl, type DiodeControl, type SendAttempt } from '../qpool/fixtures/diode/spool.js';
import { projectPath } from './process.js';

export type { DiodeControl, SendAttempt } from '../qpool/fixtures/diode/spool.js';

const tool = projectPath('dist/test/qpool/fixtures/diode/diode-tool.js');

export class DiodeDouble {
  /** The program and script of the tool, without a spool. */
  static readonly tool: readonly [string, string] = [process.execPath, tool];
  readonly env: { DIODE_DOUBLE_DIR: string };
  private readonly channelDir: string;

  private constructor(
    readonly dir: string,
    readonly channel: string,
  ) {
    this.env = { DIODE_DOUBLE_DIR: dir };
    this.channelDir = channelDir(dir, channel);
  }

  static async create(channel = 'qpool'): Promise<DiodeDouble> {
    return new DiodeDouble(await mkdtemp(join(tmpdir(), 'outpost-diode-')), channel);
  }

  /** A `diode.send_command`; `extraArgs` go last, e.g. `['--no-wait']` for a config the real tool rejects. */
  sendCommand(extraArgs: string[] = []): string[] {
    return [...this.withSpool(), 'stream-send', '--channel', this.channel, '--no-colour', ...extraArgs];
  }

  /** A `server.receive_command`. */
  receiveCommand(mode: 'stream-recv' | 'auto-stream-recv' = 'stream-recv'): string[] {
    return [...this.withSpool(), mode, '--channel', this.channel, '--no-colour'];
  }

  private withSpool(): string[] {
    return ['env', `DIODE_DOUBLE_DIR=${this.dir}`, ...DiodeDouble.tool];
  }

  /** Replaces the link's settings; `{}` makes it behave. */
  control(settings: DiodeControl): void {
    writeControl(this.channelDir, settings);
  }

  /** What is waiting to be received, left in place. */
  queued(): Buffer {
    return peekQueue(this.channelDir);
  }

  /** Queues bytes as if a sender had sent them. */
  enqueue(bytes: Uint8Array | string): void {
    writeChunk(this.channelDir, typeof bytes === 'string' ? Buffer.from(bytes) : bytes);
  }

  /** Every stream-send invocation so far, in order, with its outcome. */
  sendAttempts(): SendAttempt[] {
    return readSendLog(this.channelDir);
  }

  async cleanup(): Promise<void> {
    // A send command runs in a process group of its own (send-command.ts), so the teardown that kills
    // the outpost's group leaves a stream-send in flight to finish writing here: rm is retried while
    // it does (ENOTEMPTY failed ops-send-metrics' teardown once), as Node's rm offers for this case.
    await rm(this.dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }
}
