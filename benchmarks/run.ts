// `npm run bench -- <name> [--seconds N] [--rounds N] [--before DIST] [--markdown [--write FILE]]`: runs one
// benchmark (or `all`) and prints its table; with --markdown, one Markdown table of every headline figure
// next to its anchor's, printed or written into FILE between its bench-table markers.
import { readFile, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { Command } from 'commander';
import { actorHop } from './actor-hop.js';
import { agentProxyBenchmark } from './agent-proxy.js';
import { certFetchBenchmark } from './cert-fetch.js';
import { certIssueBenchmark } from './cert-issue.js';
import { certStoreBenchmark } from './cert-store.js';
import { coldStart } from './cold-start.js';
import { eventsBenchmark } from './events.js';
import { hostwatchBenchmark } from './hostwatch.js';
import { amplification, metricsCostBenchmark } from './metrics-cost.js';
import { netspeedBenchmark } from './netspeed.js';
import { panelBenchmark } from './panel.js';
import { qpoolCollectBenchmark } from './qpool-collect.js';
import { qpoolServeBenchmark } from './qpool-serve.js';
import { replaceTable, summaryDocument } from './summary-table.js';

interface BenchOptions {
  seconds: string;
  rounds: string;
  before?: string;
  pushInterval?: string;
  markdown?: boolean;
  write?: string;
}

const benchmarks: Record<string, (options: { seconds: number; rounds: number; before?: string; pushIntervalMs?: number }) => Promise<void>> = {
  'actor-hop': actorHop,
  'agent-proxy': agentProxyBenchmark,
  'cert-fetch': certFetchBenchmark,
  'cert-issue': certIssueBenchmark,
  'cert-store': certStoreBenchmark,
  'cold-start': coldStart,
  events: eventsBenchmark,
  hostwatch: hostwatchBenchmark,
  'metrics-cost': metricsCostBenchmark,
  netspeed: netspeedBenchmark,
  panel: panelBenchmark,
  'qpool-collect': qpoolCollectBenchmark,
  'qpool-serve': qpoolServeBenchmark,
};

const program = new Command('bench')
  .argument('<name>', `benchmark to run: ${[...Object.keys(benchmarks), 'all'].join(', ')}`)
  .option('--seconds <n>', 'seconds of load per measurement', '5')
  .option('--rounds <n>', 'measurements per case (the median is shown)', '3')
  .option('--push-interval <ms>', 'metrics-cost: how often the "on" processes push their figures (the shipped default, 5000, unless given)')
  .option('--before <dist>', 'qpool-serve, agent-proxy, cold-start, metrics-cost: the dist folder of an earlier build, measured in the same rounds')
  .option(
    '--markdown',
    "print one Markdown document at the end: the machine, the commit, and each headline figure next to its anchor (the benchmarks' own tables go to standard error)",
  )
  .option('--write <file>', 'with --markdown: write the document into FILE, between its <!-- bench-table:start --> and <!-- bench-table:end --> lines')
  .action(async (name: string, options: BenchOptions) => {
    const startedAt = new Date();
    const loadAtStart = loadavg()[0] ?? 0;
    if (options.write !== undefined) {
      if (options.markdown !== true) return program.error('--write takes --markdown too', { exitCode: 2 });
      // Checked before the run, which takes minutes.
      try {
        replaceTable(await readFile(options.write, 'utf8'), '');
      } catch (error) {
        return program.error(`--write ${options.write}: ${error instanceof Error ? error.message : String(error)}`, { exitCode: 2 });
      }
    }
    // The document is the only thing on standard output when it is printed there.
    if (options.markdown === true && options.write === undefined) console.log = console.error;
    const selected = name === 'all' ? Object.keys(benchmarks) : [name];
    const pushInterval = Number(options.pushInterval);
    if (options.pushInterval !== undefined && !(Number.isInteger(pushInterval / amplification) && pushInterval > 0)) {
      program.error(`--push-interval: a positive multiple of ${amplification} ms, not ${options.pushInterval}`, { exitCode: 2 });
      return;
    }
    const failed: { name: string; reason: string }[] = [];
    const command = process.argv
      .slice(2)
      .filter((argument, index, all) => argument !== '--write' && all[index - 1] !== '--write')
      .join(' ');
    const document = (pending: string[]) => summaryDocument({ command, startedAt, loadAtStart, failed, pending });
    // Written after each benchmark, so that a run stopped midway leaves the figures of those that finished.
    const write = async (pending: string[]) => {
      if (options.write !== undefined) await writeFile(options.write, replaceTable(await readFile(options.write, 'utf8'), document(pending)));
    };
    for (const [index, benchmark] of selected.entries()) {
      const run = benchmarks[benchmark];
      if (run === undefined) {
        program.error(`unknown benchmark ${benchmark}; known: ${Object.keys(benchmarks).join(', ')}`, { exitCode: 2 });
        return;
      }
      try {
        await run({
          seconds: Number(options.seconds),
          rounds: Number(options.rounds),
          ...(options.before === undefined ? {} : { before: options.before }),
          ...(options.pushInterval === undefined ? {} : { pushIntervalMs: pushInterval }),
        });
      } catch (error) {
        // One benchmark that cannot finish (a deadline missed on a loaded machine) does not cost
        // `all` the figures of the others: it is named here and the run exits 1 at the end.
        if (name !== 'all') throw error;
        console.error(`\n${benchmark}: did not finish: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
        failed.push({ name: benchmark, reason: (error instanceof Error ? error.message : String(error)).split('\n')[0]! });
      }
      if (options.markdown === true) await write(selected.slice(index + 1));
    }
    if (failed.length > 0) {
      console.error(`\nbenchmarks that did not finish: ${failed.map((entry) => entry.name).join(', ')}`);
      process.exitCode = 1;
    }
    if (options.markdown === true && options.write === undefined) process.stdout.write(document([]));
  });
await program.parseAsync();
