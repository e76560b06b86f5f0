import { loadavg, uptime } from 'node:os';
import { systemClock } from '../../../src/actor/clock.js';
import { runActor } from '../../../src/actor/worker-entry.js';
import { Sampler, unavailableContainers } from './logic.js';
import { ContainerCli } from './probes/container-cli.js';
import { DarwinProbe } from './probes/darwin.js';
import { LinuxProbe } from './probes/linux.js';
import { RuntimeVersions } from './probes/runtime-versions.js';
import { samplerActor, snapshotTopic } from './kind.js';
import { SamplerFigures } from './sampler-figures.js';
import type { SamplerApi } from './protocol.js';

runActor(samplerActor, {
  async start(context) {
    const { config } = context;
    const versions = new RuntimeVersions();
    const cli = new ContainerCli({ showArguments: config.showContainerArgs });
    const figures = context.metrics.enabled ? new SamplerFigures() : undefined;
    if (figures !== undefined) context.metrics.addSource(() => figures.families());
    const sampler = new Sampler(
      {
        intervalMs: config.intervalMs,
        historySeconds: config.historySeconds,
        topProcesses: config.topProcesses,
        askedGraceMs: 30_000,
        containerIntervalMs: 10_000,
        containerRetryMs: 300_000,
        portsIntervalMs: config.intervalMs * 15,
        firstSampleMs: 250,
      },
      {
        probe: process.platform === 'darwin' ? new DarwinProbe() : new LinuxProbe(),
        containers: config.containers ? cli : { read: () => Promise.resolve(unavailableContainers('container listing is turned off in the config')) },
        runtimeVersion: (runtime, exe) => versions.versionOf(runtime, exe),
        clock: systemClock,
        uptimeSeconds: uptime,
        loadAverage: () => loadavg().map((value) => Math.round(value * 100) / 100) as [number, number, number],
        publish: (snapshot) => context.publish(snapshotTopic, snapshot),
        ...(figures === undefined ? {} : { figures }),
      },
    );
    await sampler.start();
    // Each monitor front reports its own viewers; the sampler scans fully while any front has one.
    const watchersByFront = new Map<string, number>();
    const api: SamplerApi = {
      snapshot: () => sampler.snapshot(),
      setWatchers: (front, count) => {
        watchersByFront.set(front, count);
        sampler.setWatchers([...watchersByFront.values()].reduce((sum, watchers) => sum + watchers, 0));
        return Promise.resolve();
      },
    };
    return {
      api,
      stop: () => {
        sampler.stop();
        return Promise.resolve();
      },
    };
  },
});
