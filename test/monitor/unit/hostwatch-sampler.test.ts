// The sampler's schedule, driven by a manual clock and a probe whose process scan ends when the test says.
import test from 'ava';
import { ManualClock } from '../../../src/actor/clock.js';
import { Sampler, unavailableContainers } from '../../../actors/monitor/sampler/logic.js';
import type { ProcessReading, SystemProbe } from '../../../actors/monitor/sampler/probes/probe.js';
import type { Snapshot, SnapshotJson } from '../../../actors/monitor/sampler/protocol.js';

const intervalMs = 500;

function slowProbe() {
  const scans: ((readings: ProcessReading[]) => void)[] = [];
  const probe: SystemProbe = {
    machine: () =>
      Promise.resolve({
        hostname: 'h',
        os: 'os',
        kernel: 'k',
        platform: 'linux',
        arch: 'x86_64',
        cpuModel: 'cpu',
        physicalCores: 1,
        logicalCores: 1,
        totalMemoryBytes: 1024,
      }),
    coreTimes: () => [{ user: 1, nice: 0, sys: 1, idle: 1, irq: 0 }],
    memory: () => Promise.resolve({ totalBytes: 1024, usedBytes: 512, availableBytes: 512, swap: null, breakdown: null }),
    processes: () => new Promise((resolve) => scans.push(resolve)),
    listeningPorts: () => Promise.resolve([]),
    filesystems: () => [],
    diskCounters: () => [],
    interfaceCounters: () => [],
    temperatures: () => [],
  };
  return { probe, scans };
}

/** Lets every settled promise run its continuations. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

test('a scan slower than the interval is published once, though the next tick joins it', async (t) => {
  const clock = new ManualClock(1_000_000);
  const { probe, scans } = slowProbe();
  const published: SnapshotJson[] = [];
  const sampler = new Sampler(
    {
      intervalMs,
      historySeconds: 60,
      topProcesses: 10,
      askedGraceMs: 30_000,
      containerIntervalMs: 10_000,
      containerRetryMs: 300_000,
      portsIntervalMs: 7_500,
      firstSampleMs: 250,
    },
    {
      probe,
      containers: { read: () => Promise.resolve(unavailableContainers('off')) },
      runtimeVersion: () => '',
      clock,
      uptimeSeconds: () => 1,
      loadAverage: () => [0, 0, 0],
      publish: (json) => published.push(json),
    },
  );
  await sampler.start();
  sampler.setWatchers(1);

  clock.advance(intervalMs); // tick 1 starts a scan
  await settle();
  clock.advance(intervalMs); // tick 2 finds it still running and joins it
  await settle();
  t.is(scans.length, 1, 'one scan in flight');
  scans[0]!([]);
  await settle();
  t.is(published.length, 1, 'the joined scan is pushed once');

  clock.advance(intervalMs); // tick 3: a new scan, a new snapshot
  await settle();
  scans[1]!([]);
  await settle();
  t.is(published.length, 2);
  const [first, second] = published.map((json) => JSON.parse(json) as Snapshot);
  t.true(second!.timestamp > first!.timestamp, 'each push is a newer snapshot');
  sampler.stop();
});
