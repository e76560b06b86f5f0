// `npm run bench -- <name> [--seconds N] [--rounds N] [--before DIST]`: runs one benchmark (or `all`) and prints its table.
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

interface BenchOptions {
  seconds: string;
  rounds: string;
  before?: string;
  pushInterval?: string;
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
  .action(async (name: string, options: BenchOptions) => {
    const selected = name === 'all' ? Object.keys(benchmarks) : [name];
    const pushInterval = Number(options.pushInterval);
    if (options.pushInterval !== undefined && !(Number.isInteger(pushInterval / amplification) && pushInterval > 0)) {
      program.error(`--push-interval: a positive multiple of ${amplification} ms, not ${options.pushInterval}`, { exitCode: 2 });
      return;
    }
    const failed: string[] = [];
    for (const benchmark of selected) {
      const run = benchmarks[benchmark];
      if (run === undefined) {
        program.error(`unknown benchmark ${benchmark}; known: ${Object.keys(benchmarks).join(', ')}`, { exitCode: 2 });
        return;
      }
      try {
        await run({ seconds: Number(options.seconds), rounds: Number(options.rounds), ...(options.before === undefined ? {} : { before: options.before }), ...(options.pushInterval === undefined ? {} : { pushIntervalMs: pushInterval }) });
      } catch (error) {
        // One benchmark that cannot finish (a deadline missed on a loaded machine) does not cost
        // `all` the figures of the others: it is named here and the run exits 1 at the end.
        if (name !== 'all') throw error;
        console.error(`\n${benchmark}: did not finish: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
        failed.push(benchmark);
      }
    }
    if (failed.length > 0) {
      console.error(`\nbenchmarks that did not finish: ${failed.join(', ')}`);
      process.exitCode = 1;
    }
  });
await program.parseAsync();
