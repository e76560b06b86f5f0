// A diode double for one test: its own spool directory, the commands a qpool config runs to send and
// receive through it, and a view of what is in flight. The tool finds the spool through the
// environment (the command shape must stay the real tool's). qpool gives its commands only PATH,
// HOME and the locale of its own environment, so the commands a config runs set the spool the way an
// operator passes a variable to a diode tool: `env DIODE_DOUBLE_DIR=... <tool> ...`. Processes that
// run the bare tool (`DiodeDouble.tool`) are started with `env: double.env`.
import { randomInt } from 'node:crypto';
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

  /**
   * A double whose receivers chop each emission at random offsets, drawn from a seed:
   * DIODE_DOUBLE_SEED when set (to replay a failure), else a random one. The seed goes to `t.log`,
   * which ava prints with a failing test.
   */
  static async create(t: { log(...values: unknown[]): void }, options: { channel?: string } = {}): Promise<DiodeDouble> {
    const double = new DiodeDouble(await mkdtemp(join(tmpdir(), 'outpost-diode-')), options.channel ?? 'qpool');
    const fromEnvironment = Number.parseInt(process.env.DIODE_DOUBLE_SEED ?? '', 10);
    double.seed = Number.isSafeInteger(fromEnvironment) ? fromEnvironment : randomInt(2 ** 31);
    t.log(`diode double: receivers chop at offsets drawn from seed ${double.seed} (DIODE_DOUBLE_SEED=${double.seed} replays them)`);
    double.control({});
    return double;
  }

  /** The seed of the receivers' cuts. */
  seed = 0;

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

  /**
   * Replaces the link's settings, keeping the seed: `{}` is the link as the spec has it (no refusals,
   * no damage, emissions chopped at random offsets); `{ wholeChunks: true }` writes each emission
   * whole, for a test that needs it so.
   */
  control(settings: Omit<DiodeControl, 'seed' | 'emissions'>): void {
    writeControl(this.channelDir, { ...settings, seed: this.seed });
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
