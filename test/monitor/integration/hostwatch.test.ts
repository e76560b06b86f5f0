// hostwatch against ground truth read from the system itself: /proc, ss, the processes the test starts.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import test, { type ExecutionContext } from 'ava';
import type { ServedSnapshot } from '../../../actors/monitor/sampler/protocol.js';
import { snapshotWhere, startHostwatch } from '../../helpers/hostwatch.js';
import { projectPath, startProcess } from '../../helpers/process.js';

const run = promisify(execFile);
const fast = ['--interval', '0.5'];

test('the snapshot has every key and the stream pushes it at once, then every interval, with history', async (t) => {
  const host = await startHostwatch(t, fast);
  const scanStarted = Date.now();
  const snapshot = await host.snapshot();
  // The first snapshot is a full scan: on a loaded host a scan outlasts the interval, and then a
  // push comes every scan, not every interval.
  const pushEveryMs = Math.max(500, Date.now() - scanStarted);
  t.deepEqual(Object.keys(snapshot).sort(), [
    'containers',
    'cpu',
    'disks',
    'docker',
    'filesystems',
    'interfaces',
    'machine',
    'memory',
    'network',
    'processes',
    'temperatures',
    'timestamp',
  ]);
  t.is(snapshot.cpu.perCore.length, snapshot.machine.logicalCores);
  t.is(snapshot.cpu.load.length, 3);
  t.true(snapshot.processes.length > 0);
  t.regex(snapshot.machine.os, /\S/);

  const events: { timestamp: number; history: number }[] = [];
  const controller = new AbortController();
  const response = await fetch(`${host.url}api/stream`, { signal: controller.signal });
  t.is(response.headers.get('content-type'), 'text/event-stream; charset=utf-8');
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  const startedAt = Date.now();
  while (events.length < 3) {
    buffer += (await reader.read()).value ?? '';
    for (;;) {
      const end = buffer.indexOf('\n\n');
      if (end < 0) break;
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = frame.split('\n').find((line) => line.startsWith('data: '));
      if (frame.includes('event: snapshot') && data !== undefined) {
        const pushed = JSON.parse(data.slice(6)) as typeof snapshot;
        events.push({ timestamp: pushed.timestamp, history: pushed.cpu.history.length });
      }
    }
  }
  controller.abort();
  t.true(Date.now() - startedAt < Math.max(5000, 8 * pushEveryMs), `three events within a few intervals (a scan took ${pushEveryMs} ms)`);
  t.true(events[2]!.timestamp > events[1]!.timestamp, 'each push is a new snapshot');
  t.true(events[2]!.history >= events[0]!.history, 'the history travels with each snapshot');
  const spec = (await (await fetch(`${host.url}api/spec`)).json()) as { openapi: string; components: { schemas: Record<string, unknown> } };
  t.is(spec.openapi, '3.1.0');
  t.truthy(spec.components.schemas.Snapshot);
});

test('a busy child shows near 100% of one core in its row and its core bar, and is gone after it ends', async (t) => {
  const host = await startHostwatch(t, fast);
  const busy = startProcess(t, 'taskset', ['-c', '1', process.execPath, projectPath('dist/test/monitor/fixtures/hostwatch/busy-loop.js')]);
  await busy.waitFor(/busy/);
  const loaded = await snapshotWhere(
    host,
    (snapshot) => (snapshot.processes.find((row) => row.pids.includes(busy.child.pid!))?.cpuPercent ?? 0) >= 85 && (snapshot.cpu.perCore[1] ?? 0) >= 85,
  );
  const row = loaded.processes.find((candidate) => candidate.pids.includes(busy.child.pid!))!;
  t.is(row.name, 'busy-loop.js');
  t.true(row.cpuPercent <= 105, `at most one core: ${row.cpuPercent}`);
  busy.child.kill('SIGKILL');
  await busy.exited;
  const idle = await snapshotWhere(
    host,
    (snapshot) => !snapshot.processes.some((candidate) => candidate.pids.includes(busy.child.pid!)) && (snapshot.cpu.perCore[1] ?? 100) < 75,
  );
  t.true((idle.cpu.perCore[1] ?? 100) < 75);
});

test('five workers of one parent form one xN row with the interpreter, its version and the script name', async (t) => {
  const host = await startHostwatch(t, fast);
  const nodePool = startProcess(t, process.execPath, [projectPath('dist/test/monitor/fixtures/hostwatch/node-pool-parent.js')]);
  const pythonPool = startProcess(t, 'python3', [projectPath('test/monitor/fixtures/hostwatch/python_pool_parent.py')]);
  const nodePids = JSON.parse((await nodePool.waitFor(/^\{.*\}$/m))[0]) as { workers: number[] };
  const pythonPids = JSON.parse((await pythonPool.waitFor(/^\{.*\}$/m))[0]) as { workers: number[] };
  const pythonVersion = (await run('python3', ['-c', 'import platform; print(platform.python_version())'])).stdout.trim();
  const rowOf = (pids: number[]) => (snapshot: Awaited<ReturnType<typeof host.snapshot>>) =>
    snapshot.processes.find((row) => pids.every((pid) => row.pids.includes(pid)));
  const snapshot = await snapshotWhere(host, (candidate) => {
    const python = rowOf(pythonPids.workers)(candidate);
    return rowOf(nodePids.workers)(candidate) !== undefined && python !== undefined && python.runtime?.version === pythonVersion;
  });
  const node = rowOf(nodePids.workers)(snapshot)!;
  t.like(node, { name: 'node-pool-worker.js', count: 5, runtime: { name: 'node', version: process.versions.node } });
  const python = rowOf(pythonPids.workers)(snapshot)!;
  t.like(python, { name: 'python_pool_parent.py', count: 5, runtime: { name: 'python', version: pythonVersion } });
  t.is(python.source, (await run('id', ['-un'])).stdout.trim());
});

test('a python -c program with a multiprocessing pool and its workers are named after the program, not after what started it', async (t) => {
  const host = await startHostwatch(t, fast);
  const source = await readFile(projectPath('test/monitor/fixtures/hostwatch/python_pool_parent.py'), 'utf8');
  // fork: the workers run the program's own command line; spawn: multiprocessing's bootstrap code.
  const pools = await Promise.all(
    ['fork', 'spawn'].map(async (method) => {
      const pool = startProcess(t, 'python3', ['-c', source, method]);
      return JSON.parse((await pool.waitFor(/^\{.*\}$/m))[0]) as { parent: number; workers: number[] };
    }),
  );
  const rowWith = (snapshot: Awaited<ReturnType<typeof host.snapshot>>, pids: number[]) =>
    snapshot.processes.find((row) => pids.every((pid) => row.pids.includes(pid)));
  const snapshot = await snapshotWhere(host, (candidate) =>
    pools.every(({ parent, workers }) => rowWith(candidate, [parent]) !== undefined && rowWith(candidate, workers) !== undefined),
  );
  for (const { parent, workers } of pools) {
    t.like(rowWith(snapshot, [parent]), { name: 'python -c', runtime: { name: 'python' } });
    t.like(rowWith(snapshot, workers), { name: 'python -c', runtime: { name: 'python' } });
  }
});

test('a socket on 0.0.0.0 is listed with its process and one on 127.0.0.1 is not, as ss sees them', async (t) => {
  const host = await startHostwatch(t, fast);
  const listener = startProcess(t, process.execPath, [projectPath('dist/test/monitor/fixtures/hostwatch/listen-two.js')]);
  const { everywhere, loopback, pid } = JSON.parse((await listener.waitFor(/^\{.*\}$/m))[0]) as { everywhere: number; loopback: number; pid: number };
  const snapshot = await snapshotWhere(host, (candidate) => candidate.network.some((port) => port.port === everywhere));
  const { stdout: ss } = await run('ss', ['-ltnpH']);
  const ssLine = ss.split('\n').find((line) => line.includes(`0.0.0.0:${everywhere} `));
  t.truthy(ssLine, 'ss lists the socket on 0.0.0.0');
  t.regex(ssLine!, new RegExp(`pid=${pid},`));
  t.true(ss.includes(`127.0.0.1:${loopback} `), 'ss lists the loopback socket too');
  const listed = snapshot.network.find((port) => port.port === everywhere)!;
  t.deepEqual(listed, { port: everywhere, address: `0.0.0.0:${everywhere}`, protocol: 'tcp', process: 'listen-two.js', pid });
  t.false(snapshot.network.some((port) => port.port === loopback));
  t.false(snapshot.network.some((port) => port.address.startsWith('127.') || port.address.startsWith('[::1]')));
});

test('memory and swap agree with /proc/meminfo read at the same moment, within 1%', async (t) => {
  const host = await startHostwatch(t, fast);
  const snapshot = await host.snapshot();
  const meminfo = await readFile('/proc/meminfo', 'utf8');
  const kib = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(meminfo)![1]) * 1024;
  const total = kib('MemTotal');
  t.is(snapshot.memory.totalBytes, total);
  t.true(Math.abs(snapshot.memory.usedBytes - (total - kib('MemAvailable'))) <= total * 0.01);
  const swapTotal = kib('SwapTotal');
  if (swapTotal === 0) {
    t.is(snapshot.memory.swap, null);
  } else {
    t.is(snapshot.memory.swap?.totalBytes, swapTotal);
    t.true(Math.abs((snapshot.memory.swap?.usedBytes ?? 0) - (swapTotal - kib('SwapFree'))) <= swapTotal * 0.01);
  }
});

/** hostwatch with the docker stand-in on PATH (named `cli`), its three container processes played by real sleepers. */
async function withDockerStandIn(t: ExecutionContext, args: string[], cli = 'docker'): Promise<{ snapshot: ServedSnapshot; pids: [string, string, string] }> {
  const bin = await mkdtemp(join(tmpdir(), 'outpost-docker-'));
  t.teardown(() => rm(bin, { recursive: true, force: true }));
  const sleepers = [startProcess(t, 'sleep', ['300']), startProcess(t, 'sleep', ['301']), startProcess(t, 'sleep', ['302'])];
  const [a = '', b = '', c = ''] = sleepers.map((sleeper) => String(sleeper.child.pid));
  // hostwatch gives the CLI only the variables a container engine reads: the stand-in's PIDs are set here.
  await writeFile(
    join(bin, cli),
    `#!/bin/sh\nPATH='${process.env.PATH ?? ''}' FAKE_PID_A=${a} FAKE_PID_B=${b} FAKE_PID_C=${c} exec '${projectPath('test/monitor/fixtures/hostwatch/docker')}' "$@"\n`,
    { mode: 0o755 },
  );
  // The stand-in alone on hostwatch's PATH: a docker CLI installed on the machine would be found before a podman one.
  const host = await startHostwatch(t, [...fast, ...args], { PATH: bin });
  return { snapshot: await snapshotWhere(host, (candidate) => candidate.containers.length === 3), pids: [a, b, c] };
}

test('container processes come through the docker CLI and merge into the table with their container, their programs without arguments', async (t) => {
  const {
    snapshot,
    pids: [a, b, c],
  } = await withDockerStandIn(t, []);
  t.deepEqual(snapshot.machine.containerRuntime, { available: true, name: 'docker', version: '28.2.2' });
  t.deepEqual(
    snapshot.containers.map((entry) => [entry.container, entry.pid, entry.command]),
    [
      ['web', Number(a), 'nginx:'],
      ['web', Number(b), 'nginx:'],
      ['cache', Number(c), 'redis-server'],
    ],
  );
  // Arguments are where containers are given passwords: none of them leaves the sampler.
  const served = JSON.stringify(snapshot);
  for (const argument of ['daemon off', '*:6379', 'worker process']) t.false(served.includes(argument), argument);
  const rowOf = (pid: string) => snapshot.processes.find((row) => row.pids.includes(Number(pid)));
  t.like(rowOf(a), { container: true, source: 'web' });
  t.like(rowOf(c), { container: true, source: 'cache' });
  t.deepEqual(snapshot.docker, snapshot.containers, "the list is also under the runtime's name");
  t.false('podman' in snapshot);
});

test('with podman as the CLI found, the list is also under podman', async (t) => {
  const { snapshot } = await withDockerStandIn(t, [], 'podman');
  t.like(snapshot.machine.containerRuntime, { available: true, name: 'podman' });
  t.deepEqual(snapshot.podman, snapshot.containers);
  t.false('docker' in snapshot);
});

test('--show-container-args shows container command lines whole', async (t) => {
  const {
    snapshot,
    pids: [a, b, c],
  } = await withDockerStandIn(t, ['--show-container-args']);
  t.deepEqual(
    snapshot.containers.map((entry) => [entry.container, entry.pid, entry.command]),
    [
      ['web', Number(a), 'nginx: master process nginx -g daemon off;'],
      ['web', Number(b), 'nginx: worker process'],
      ['cache', Number(c), 'redis-server *:6379'],
    ],
  );
});

test('without a container runtime CLI the containers panel says why', async (t) => {
  const host = await startHostwatch(t, fast, { PATH: '/nonexistent' });
  const snapshot = await host.snapshot();
  t.deepEqual(snapshot.machine.containerRuntime, { available: false, reason: 'no container runtime CLI (docker or podman) found on PATH' });
  t.deepEqual(snapshot.containers, []);
  t.deepEqual((snapshot as ServedSnapshot).docker, [], "docker, the original's key, is there for scripts that read it");
});

test('a client that reconnects gets the current state and the whole history at once', async (t) => {
  const host = await startHostwatch(t, fast);
  const firstEvent = async () => {
    const controller = new AbortController();
    const startedAt = Date.now();
    const response = await fetch(`${host.url}api/stream`, { signal: controller.signal });
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    while (!/event: snapshot\ndata: .*\n\n/.test(text)) text += (await reader.read()).value ?? '';
    controller.abort();
    const data = /event: snapshot\ndata: (.*)\n\n/.exec(text)![1]!;
    return {
      waitedMs: Date.now() - startedAt,
      history: (JSON.parse(data) as { cpu: { history: unknown[] } }).cpu.history.length,
      retry: /^retry: (\d+)$/m.exec(text)?.[1],
    };
  };
  const first = await firstEvent();
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const again = await firstEvent();
  t.is(first.retry, '2000', 'browsers are told to reconnect after 2 s');
  t.true(again.waitedMs < 1000, `the current state comes at once (${again.waitedMs} ms)`);
  t.true(again.history > first.history, 'the history kept on the server came with it');
});

test('with two front threads every viewer gets the samples, whichever thread serves it', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'hostwatch-fronts-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'host.json');
  await writeFile(file, JSON.stringify({ roles: { monitor: { host: '127.0.0.1', port: 0, threads: 2, interval_seconds: 0.5, containers: false } } }));
  const host = startProcess(t, process.execPath, [projectPath('dist/bin/outpost.js'), 'run', '-c', file, '--debug']);
  const [, url] = await host.waitFor(/^monitor\s+(http:\/\/127\.0\.0\.1:\d+\/)$/m);
  t.regex(host.stderr(), /actor monitor\/http-front#2 ready/, 'two fronts run');
  // The kernel spreads connections over the two threads by their ports; eight viewers land on both
  // but for a 1-in-128 chance, and every one of them must get pushed samples either way.
  const controller = new AbortController();
  t.teardown(() => controller.abort());
  const pushedPerViewer = await Promise.all(
    Array.from({ length: 8 }, async () => {
      const response = await fetch(`${url}api/stream`, { signal: controller.signal });
      const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
      let text = '';
      while ((text.match(/event: snapshot/g) ?? []).length < 3) {
        const { value, done } = await reader.read();
        if (done) break;
        text += value;
      }
      return (text.match(/event: snapshot/g) ?? []).length;
    }),
  );
  t.true(
    pushedPerViewer.every((count) => count >= 3),
    `snapshots per viewer: ${pushedPerViewer.join(', ')}`,
  );
});
