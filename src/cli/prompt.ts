// Questions on a terminal or a pipe, for the setup wizards. Every question has a default shown in
// brackets that Enter takes. The end of input takes it too, unless the wizard asks for every answer
// (`endOfInput: 'refuse'`, qpool setup): then input that ends early is no answer, and the wizard
// stops without writing anything. A bad answer is explained and the question asked again.
//
// Lines are read through readline's async iterator, not `rl.question()`: piped input arrives all at
// once, and `question()` drops lines that come in while no question is pending.
import { createInterface, type Interface } from 'node:readline/promises';
import { Writable } from 'node:stream';
import { OutpostError } from '../errors.js';

/** Thrown by an answer parser: the message says what a good answer looks like. */
export class BadAnswer extends OutpostError {
  override readonly name: string = 'BadAnswer';
  constructor(message: string, options?: ErrorOptions) {
    super('ERR_BAD_REQUEST', message, options);
  }
}

export class Prompter {
  private readonly rl: Interface;
  private readonly lines: AsyncIterator<string>;
  private readonly screen: MutableOutput;
  /** Line editing, echo and Ctrl-C come from readline (both ends are terminals). */
  private readonly terminal: boolean;
  private readonly interrupted: Promise<never>;
  private ended = false;

  constructor(
    input: NodeJS.ReadableStream,
    private readonly output: NodeJS.WritableStream,
    private readonly options: { endOfInput: 'default' | 'refuse' } = { endOfInput: 'default' },
  ) {
    this.terminal = isTerminal(input) && isTerminal(output);
    this.screen = new MutableOutput(output);
    this.rl = createInterface({ input, output: this.screen, terminal: this.terminal, historySize: 0 });
    this.lines = this.rl[Symbol.asyncIterator]();
    this.interrupted = new Promise<never>((_, reject) => {
      this.rl.on('SIGINT', () => {
        this.output.write('\n');
        reject(new Error('setup cancelled; nothing was written'));
      });
    });
    this.interrupted.catch(() => {});
  }

  say(text = ''): void {
    this.output.write(`${text}\n`);
  }

  /**
   * Asks until `parse` accepts the answer; an empty answer (or the end of input) means `fallback`,
   * which is shown in brackets. Without a fallback the question has no default: `parse` is handed the
   * empty answer and says what to give. `parse` throws BadAnswer to have the question asked again.
   */
  async ask<T>(question: string, fallback: string | undefined, parse: (answer: string) => T): Promise<T> {
    for (;;) {
      const answer = fallback === undefined ? await this.line(`${question}: `, false) : (await this.line(`${question} [${fallback}]: `, false)) || fallback;
      try {
        return parse(answer);
      } catch (error) {
        if (!(error instanceof BadAnswer)) throw error;
        this.say(`  ${error.message}`);
        if (this.ended) throw new Error(`input ended without a usable answer to "${question}"`);
      }
    }
  }

  yesNo(question: string, fallback: boolean): Promise<boolean> {
    return this.ask(question, fallback ? 'Y/n' : 'y/N', (answer) => {
      if (answer === 'Y/n' || answer === 'y/N') return fallback;
      if (/^(y|yes)$/i.test(answer)) return true;
      if (/^(n|no)$/i.test(answer)) return false;
      throw new BadAnswer('please answer y or n');
    });
  }

  /** A whole number from `min` to `max`; the range is part of the question. */
  integer(question: string, fallback: number, min: number, max?: number): Promise<number> {
    const range = max === undefined ? `at least ${min}` : `${min}-${max}`;
    return this.ask(`${question} (${range})`, String(fallback), (answer) => {
      const digits = /^\d{1,3}([,_]\d{3})+$/.test(answer) ? answer.replace(/[,_]/g, '') : answer;
      const value = /^\d+$/.test(digits) ? Number(digits) : NaN;
      if (!Number.isSafeInteger(value) || value < min || (max !== undefined && value > max)) {
        throw new BadAnswer(
          `${JSON.stringify(answer)} is not usable: the answer must be a whole number, ${max === undefined ? range : `from ${min} to ${max}`}`,
        );
      }
      return value;
    });
  }

  /** One of `choices`; the first is the default. */
  choice<const Choice extends string>(question: string, choices: readonly [Choice, ...Choice[]]): Promise<Choice> {
    return this.ask(`${question} (${choices.join(' or ')})`, choices[0], (answer) => {
      const chosen = choices.find((candidate) => candidate === answer.toLowerCase());
      if (chosen === undefined) throw new BadAnswer(`please answer ${choices.join(' or ')}`);
      return chosen;
    });
  }

  /** A line not echoed when typed on a terminal (an API key); '' when skipped. */
  secret(question: string): Promise<string> {
    return this.line(`${question}: `, true);
  }

  close(): void {
    this.rl.close();
  }

  /** The next line, trimmed; '' once the input has ended. */
  private async line(prompt: string, secret: boolean): Promise<string> {
    if (this.ended) {
      this.output.write(`${prompt}\n`);
      return '';
    }
    this.rl.setPrompt(prompt);
    this.rl.prompt();
    this.screen.muted = secret && this.terminal;
    let next: IteratorResult<string>;
    try {
      next = await Promise.race([this.lines.next(), this.interrupted]);
    } finally {
      this.screen.muted = false;
    }
    if (next.done === true) {
      if (this.options.endOfInput === 'refuse') {
        this.output.write('\n');
        throw new Error(`the input ended before "${prompt.replace(/:\s*$/, '')}" was answered (Enter takes the default); nothing was written`);
      }
      this.ended = true;
      this.output.write('\n');
      return '';
    }
    // A terminal has shown what was typed; a pipe has not, so the transcript shows it (never a secret).
    if (!this.terminal) this.output.write(secret ? (next.value === '' ? '\n' : '(hidden)\n') : `${next.value}\n`);
    else if (secret) this.output.write('\n');
    return next.value.trim();
  }
}

function isTerminal(stream: NodeJS.ReadableStream | NodeJS.WritableStream): boolean {
  return (stream as { isTTY?: boolean }).isTTY === true;
}

/** The output readline writes to, which can be silenced while a secret is typed. */
class MutableOutput extends Writable {
  muted = false;

  constructor(private readonly target: NodeJS.WritableStream) {
    super();
  }

  get isTTY(): boolean {
    return isTerminal(this.target);
  }

  get columns(): number | undefined {
    return (this.target as { columns?: number }).columns;
  }

  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (!this.muted) this.target.write(chunk);
    callback();
  }
}
