// The qpool-collect benchmark's measuring process, run with --expose-gc: the collector's hot path on a
// maximal legacy answer (length 1024, size 1024: 1 MiB of bytes, about 2 MiB of hex JSON), timed in
// process, then the hand-over to a send command, then memory before, at the peak and after GC.
// Prints one JSON document on stdout: `node qpool-collect-host.js RUNS SENDS`.
import { randomBytes } from 'node:crypto';
import { readProviderAnswer } from '../../actors/qpool/collector/provider.js';
import { sliceValues } from '../../actors/qpool/collector/values.js';
import { runSendCommand } from '../../actors/qpool/diode-sender/send-command.js';

const runs = Number(process.argv[2] ?? 50);
const sends = Number(process.argv[3] ?? 10);
const settings = { length: 1024, size: 1024 };
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with --expose-gc');

export interface MemoryPoint {
  rss: number;
  heapUsed: number;
  /** Buffers and other memory outside the V8 heap (external includes arrayBuffers). */
  external: number;
}

export interface CollectHostResult {
  bodyBytes: number;
  values: number;
  /** The batch handed to the send command. */
  linesBytes: number;
  parse: number[];
  read: number[];
  slice: number[];
  readAndSlice: number[];
  handOver: Record<'node' | 'cat', number[]>;
  endToEndCat: number[];
  /** Before the first cycle, the highest reading during any, after the first and after the last (GC first). */
  memory: { before: MemoryPoint; peak: MemoryPoint; afterOne: MemoryPoint; after: MemoryPoint; cycles: number };
}

/**
 * A fresh answer as fetchText hands it over: the body string, nothing else kept. The legacy API's
 * answer to type=hex16 (../shared/reference/anu-api.md): `length` blocks of `size` bytes in hex.
 */
function makeBody(): string {
  const bytes = randomBytes(settings.length * settings.size);
  const data = Array.from({ length: settings.length }, (_, index) => bytes.toString('hex', index * settings.size, (index + 1) * settings.size));
  return JSON.stringify({ type: 'string', length: settings.length, size: settings.size, data, success: true });
}

function point(): MemoryPoint {
  const usage = process.memoryUsage();
  return { rss: usage.rss, heapUsed: usage.heapUsed, external: usage.external };
}

function collectGarbage(): void {
  gc!();
  gc!();
}

function validateAndSlice(body: string) {
  const answer = readProviderAnswer('legacy', settings, 200, body);
  if (!answer.ok) throw new Error(`the answer was refused: ${answer.reason}`);
  return sliceValues(answer.bytes, 'legacy', new Date());
}

function time<T>(action: () => T): [number, T] {
  const startedAt = performance.now();
  const result = action();
  return [performance.now() - startedAt, result];
}

/** One fresh answer as the collector meets it: validated, sliced, handed over; `note` reads memory at each step. */
async function memoryCycle(command: string[], note: () => void): Promise<void> {
  const body = makeBody();
  note();
  const answer = readProviderAnswer('legacy', settings, 200, body);
  note();
  if (!answer.ok) throw new Error(answer.reason);
  const batch = sliceValues(answer.bytes, 'legacy', new Date());
  note();
  const outcome = await runSendCommand(command, batch.lines, 60_000);
  note();
  if (!outcome.ok) throw new Error(outcome.reason);
}

const memoryCycles = 20;
// Its standard output is /dev/null already: `cat` here is `cat > /dev/null`. `node` is a tool whose
// start dominates, as the diode double's does: a Node process that reads its standard input to the end.
const commands = { node: [process.execPath, '-e', 'process.stdin.resume()'], cat: ['cat'] };
const body = makeBody();
const result: CollectHostResult = {
  bodyBytes: Buffer.byteLength(body),
  values: 0,
  linesBytes: 0,
  parse: [],
  read: [],
  slice: [],
  readAndSlice: [],
  handOver: { node: [], cat: [] },
  endToEndCat: [],
  memory: { before: point(), peak: point(), afterOne: point(), after: point(), cycles: 0 },
};
// Warm-up, then the anchor and each step alternately on the same body.
for (let index = 0; index < 5; index++) validateAndSlice(body);
for (let index = 0; index < runs; index++) {
  result.parse.push(time(() => JSON.parse(body) as unknown)[0]);
  const [readMs, answer] = time(() => readProviderAnswer('legacy', settings, 200, body));
  if (!answer.ok) throw new Error(answer.reason);
  const [sliceMs, batch] = time(() => sliceValues(answer.bytes, 'legacy', new Date()));
  result.read.push(readMs);
  result.slice.push(sliceMs);
  result.readAndSlice.push(readMs + sliceMs);
  result.values = batch.count;
}

const lines = validateAndSlice(body).lines;
result.linesBytes = Buffer.byteLength(lines);
for (let index = 0; index < sends + 2; index++) {
  for (const name of ['node', 'cat'] as const) {
    const startedAt = performance.now();
    const outcome = await runSendCommand(commands[name], lines, 60_000);
    if (!outcome.ok) throw new Error(`${name}: ${outcome.reason}`);
    if (index >= 2) result.handOver[name].push(performance.now() - startedAt);
  }
}
for (let index = 0; index < sends; index++) {
  const fresh = makeBody();
  const startedAt = performance.now();
  const outcome = await runSendCommand(commands.cat, validateAndSlice(fresh).lines, 60_000);
  if (!outcome.ok) throw new Error(outcome.reason);
  result.endToEndCat.push(performance.now() - startedAt);
}

// Memory: each cycle runs in its own function, so nothing of it stays reachable from this scope;
// its peak is when the body, the parsed answer, the bytes and the lines are all alive.
const peak = point();
const note = () => {
  const now = point();
  peak.rss = Math.max(peak.rss, now.rss);
  peak.heapUsed = Math.max(peak.heapUsed, now.heapUsed);
  peak.external = Math.max(peak.external, now.external);
};
collectGarbage();
const before = point();
await memoryCycle(commands.cat, note);
collectGarbage();
const afterOne = point();
for (let cycle = 1; cycle < memoryCycles; cycle++) await memoryCycle(commands.cat, note);
collectGarbage();
result.memory = { before, peak, afterOne, after: point(), cycles: memoryCycles };
process.stdout.write(`${JSON.stringify(result)}\n`);
