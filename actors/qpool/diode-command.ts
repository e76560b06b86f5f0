// Rules for the diode commands of a qpool config. The diode tool moves a byte stream one way; only
// its stream subcommands fit qpool (a line may be split anywhere, the newline resynchronises), and a
// few flags that look harmless make every transfer fail.
import type { z } from 'zod';

/** Subcommands that move files, not a stream: qpool never writes values to disk, so it cannot use them. */
const fileSubcommands = new Set(['send', 'recv', 'receive', 'auto-recv', 'auto-receive', 'send-file', 'recv-file', 'receive-file']);
const sendSubcommand = 'stream-send';
const receiveSubcommands = new Set(['stream-recv', 'auto-stream-recv']);
/** Flags `stream-send` does not have: the tool rejects them, so every cycle would fail. */
const flagsNotOnStreamSend = new Set(['--no-wait', '-f']);

type Issues = z.core.$RefinementCtx<string[]>;

export function checkSendCommand(command: readonly string[], context: Issues): void {
  const subcommand = rejectFileSubcommand(command, context, 'stream-send');
  if (subcommand !== sendSubcommand) {
    if (receiveSubcommands.has(subcommand ?? ''))
      context.addIssue({ code: 'custom', message: `runs ${subcommand}, a receive subcommand; the sending side uses stream-send` });
    return;
  }
  command.forEach((argument, index) => {
    if (flagsNotOnStreamSend.has(argument)) {
      context.addIssue({
        code: 'custom',
        path: [index],
        message: `is ${argument}, which stream-send does not have: the diode tool would reject it and every cycle would fail (remove it; stream-send waits for the transfer by itself)`,
      });
    }
  });
}

export function checkReceiveCommand(command: readonly string[], context: Issues): void {
  const subcommand = rejectFileSubcommand(command, context, 'stream-recv or auto-stream-recv');
  if (subcommand === sendSubcommand)
    context.addIssue({ code: 'custom', message: 'runs stream-send, the sending subcommand; the receiving side uses stream-recv or auto-stream-recv' });
}

/** The diode subcommand the command runs, if it names one; file-based ones are reported. */
function rejectFileSubcommand(command: readonly string[], context: Issues, use: string): string | undefined {
  // The program may be wrapped (sudo, ssh, a path): look at every argument after it.
  for (const [index, argument] of command.entries()) {
    if (index === 0) continue;
    if (fileSubcommands.has(argument)) {
      context.addIssue({
        code: 'custom',
        path: [index],
        message: `is ${argument}, a file-based diode subcommand; qpool streams values and never writes them to disk, so use ${use}`,
      });
      return argument;
    }
    if (argument === sendSubcommand || receiveSubcommands.has(argument)) return argument;
  }
  return undefined;
}
