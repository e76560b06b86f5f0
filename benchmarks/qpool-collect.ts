// qpool-collect: the collector's hot path on a maximal legacy answer (length 1024, size 1024: 1 MiB of
// random bytes, about 2 MiB of hex JSON): validated (readProviderAnswer), sliced into 8,192 JSON lines
// (sliceValues) and handed to the diode's send command (runSendCommand). Measured in a child process
// run with --expose-gc (benchmarks/hosts/qpool-collect-host.ts), so memory can be read after a GC.
// Anchor in the same run: JSON.parse alone of the same body, the least any parser of it must do.
// The hand-over is timed twice: to a Node process reading its standard input (a tool whose start dominates, as the diode double's does)
// and to `cat > /dev/null`, which separates our cost from the tool's startup.
// Target: validated, sliced and handed over in under 50 ms; memory back to its idle level afterwards.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { median, percentile, printTable, verdict } from './harness.js';
import { figure, ratio, summaryRow } from './summary-table.js';
import type { CollectHostResult } from './hosts/qpool-collect-host.js';

const run = promisify(execFile);
const megabyte = 1024 * 1024;

export async function qpoolCollectBenchmark(options: { rounds: number }): Promise<void> {
  const runs = Math.max(50, options.rounds * 10);
  const sends = Math.max(10, options.rounds * 3);
  const host = new URL('./hosts/qpool-collect-host.js', import.meta.url).pathname;
  const { stdout } = await run(process.execPath, ['--expose-gc', host, String(runs), String(sends)], { maxBuffer: 1 << 24 });
  const result = JSON.parse(stdout) as CollectHostResult;

  const parse = median(result.parse);
  const row = (label: string, samples: number[]) => [label, median(samples), percentile(samples, 99), median(samples) / parse];
  printTable(
    `qpool-collect: legacy answer length 1024 size 1024 (${(result.bodyBytes / megabyte).toFixed(2)} MiB of JSON, ${result.values} values), ${runs} runs in process, median (Node ${process.versions.node})`,
    ['step', 'median ms', 'p99 ms', 'ratio to JSON.parse'],
    [
      row('JSON.parse of the body (anchor)', result.parse),
      row('readProviderAnswer (parse, checks, hex to bytes)', result.read),
      row('sliceValues (8,192 JSON lines)', result.slice),
      row('validated and sliced', result.readAndSlice),
    ],
  );

  const handOver = (label: string, samples: number[]) => [label, median(samples), percentile(samples, 99), median(samples) / median(result.handOver.cat)];
  printTable(
    `hand-over: runSendCommand with the ${(result.linesBytes / megabyte).toFixed(1)} MiB of lines on standard input, ${sends} runs each, median`,
    ['send command', 'median ms', 'p99 ms', 'ratio to cat'],
    [
      handOver('cat > /dev/null (anchor: process start and pipe)', result.handOver.cat),
      handOver('node reading it to the end (a tool whose start dominates)', result.handOver.node),
      handOver('validated, sliced and handed to cat, end to end', result.endToEndCat),
    ],
  );

  const { before, peak, afterOne, after, cycles } = result.memory;
  const mb = (bytes: number) => bytes / megabyte;
  const line = (label: string, pick: (point: typeof before) => number) => [
    label,
    mb(pick(before)),
    mb(pick(peak)),
    mb(pick(afterOne)),
    mb(pick(after)),
    mb(pick(after) - pick(before)),
  ];
  printTable(
    `memory of the measuring process, cycles of a fresh body validated, sliced and handed to cat, MB; every figure but the peak follows a full GC`,
    ['', 'idle', 'peak', 'after 1 cycle', `after ${cycles} cycles`, 'growth'],
    [line('V8 heap used', (point) => point.heapUsed), line('external (Buffers)', (point) => point.external), line('RSS', (point) => point.rss)],
  );

  const endToEnd = median(result.endToEndCat);
  const ours = median(result.readAndSlice) + median(result.handOver.cat);
  summaryRow({
    benchmark: `qpool-collect: a ${(result.bodyBytes / megabyte).toFixed(1)} MiB legacy answer of ${figure(result.values)} values validated and sliced (median of ${runs})`,
    ours: `${figure(median(result.readAndSlice))} ms`,
    anchor: 'JSON.parse of the same body alone',
    anchorFigure: `${figure(parse)} ms`,
    ratio: ratio(median(result.readAndSlice), parse),
  });
  summaryRow({
    benchmark: `qpool-collect: the same answer validated, sliced and handed to \`cat\`, end to end (median of ${sends})`,
    ours: `${figure(endToEnd)} ms, p99 ${figure(percentile(result.endToEndCat, 99))} ms`,
    anchor: '`cat` started and fed the same lines',
    anchorFigure: `${figure(median(result.handOver.cat))} ms`,
    ratio: ratio(endToEnd, median(result.handOver.cat)),
  });
  console.log(
    `validated, sliced and handed over: ${endToEnd.toFixed(1)} ms end to end with cat as the tool (p99 ${percentile(result.endToEndCat, 99).toFixed(1)} ms; ${ours.toFixed(1)} ms as the sum of the medians) (target: under 50 ms) -> ${verdict(endToEnd < 50)}; with a Node process as the tool: ${(median(result.readAndSlice) + median(result.handOver.node)).toFixed(1)} ms`,
  );
  const retained = after.heapUsed + after.external - (before.heapUsed + before.external);
  console.log(
    `memory after ${cycles} cycles: ${mb(retained).toFixed(2)} MB more heap and Buffers than idle, a peak of ${mb(peak.heapUsed + peak.external - before.heapUsed - before.external).toFixed(1)} MB over idle during a cycle (target: back to idle, within 1 MB) -> ${verdict(retained < megabyte)}; RSS ${mb(after.rss - before.rss).toFixed(1)} MB over idle (pages V8 and malloc keep; no growth past the first cycles is the sign of no leak)`,
  );
}
