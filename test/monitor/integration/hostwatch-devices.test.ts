// Filesystems, disks, interfaces and temperatures against what the system says itself: df, and
// /proc/diskstats and /proc/net/dev read before and after the bytes the test moves.
import { execFile } from 'node:child_process';
import { mkdtemp, open, readdir, readFile, rm } from 'node:fs/promises';
import { createServer, connect } from 'node:net';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import type { Snapshot } from '../../../actors/monitor/sampler/protocol.js';
import { snapshotWhere, startHostwatch } from '../../helpers/hostwatch.js';
import { projectPath } from '../../helpers/process.js';

const run = promisify(execFile);
const fast = ['--interval', '0.5'];

/** Bytes a history of rates adds up to: each point's rate over the time since the point before it. */
function integral<P extends { t: number }>(history: readonly P[], rate: (point: P) => number): number {
  let total = 0;
  for (let index = 1; index < history.length; index += 1) total += rate(history[index]!) * (history[index]!.t - history[index - 1]!.t);
  return total;
}

async function netDevCounters(name: string): Promise<number[]> {
  const line = (await readFile('/proc/net/dev', 'utf8')).split('\n').find((candidate) => candidate.trim().startsWith(`${name}:`))!;
  return line
    .slice(line.indexOf(':') + 1)
    .trim()
    .split(/\s+/)
    .map(Number);
}

/** Bytes written per block device since boot. */
async function diskstatsWritten(): Promise<Map<string, number>> {
  const written = new Map<string, number>();
  for (const line of (await readFile('/proc/diskstats', 'utf8')).split('\n')) {
    const fields = line.trim().split(/\s+/);
    if (fields.length >= 14) written.set(fields[2]!, Number(fields[9]) * 512);
  }
  return written;
}

test('filesystems are the ones df -x tmpfs -x devtmpfs lists, with its sizes', async (t) => {
  const host = await startHostwatch(t, fast);
  const snapshot = await host.snapshot();
  const { stdout } = await run('df', ['-x', 'tmpfs', '-x', 'devtmpfs', '-B1', '--output=target,source,fstype,size,used']);
  const df = stdout
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => {
      const [target = '', source = '', fstype = '', size = '', used = ''] = line.trim().split(/\s+/);
      return { target, source, fstype, size: Number(size), used: Number(used) };
    });
  t.deepEqual(snapshot.filesystems.map((filesystem) => filesystem.mountPoint).sort(), df.map((row) => row.target).sort());
  for (const row of df) {
    const filesystem = snapshot.filesystems.find((candidate) => candidate.mountPoint === row.target)!;
    t.like(filesystem, { device: row.source, type: row.fstype, totalBytes: row.size });
    t.true(Math.abs(filesystem.usedBytes - row.used) <= row.size * 0.01, `${row.target}: ${filesystem.usedBytes} used, df says ${row.used}`);
    t.true(filesystem.history.length > 0);
  }
});

test('an interface carries the bytes sent through it: its rate history adds up to them, within what /proc/net/dev counted', async (t) => {
  const before = await netDevCounters('lo');
  const host = await startHostwatch(t, fast);
  await snapshotWhere(host, (snapshot) => (snapshot.interfaces.find((link) => link.name === 'lo')?.history.length ?? 0) >= 1);
  const sent = 32 * 1024 * 1024;
  const server = createServer((socket) => socket.resume());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => server.close());
  const { port } = server.address() as { port: number };
  const socket = connect(port, '127.0.0.1');
  await new Promise<void>((resolve) => socket.end(Buffer.alloc(sent), resolve));
  const snapshot = await snapshotWhere(host, (candidate) => {
    const lo = candidate.interfaces.find((link) => link.name === 'lo');
    return lo !== undefined && integral(lo.history, (point) => point.receive) >= sent;
  });
  const after = await netDevCounters('lo');
  const lo = snapshot.interfaces.find((link) => link.name === 'lo')!;
  t.true(integral(lo.history, (point) => point.receive) <= after[0]! - before[0]! + 1024, 'no more than the kernel counted');
  t.is(snapshot.interfaces.at(-1)!.name, 'lo', 'loopback last');
  t.true(lo.loopback);
  // Errors and drops are the kernel's counts, read between the two readings of the test.
  t.true(before[2]! <= lo.receiveErrors && lo.receiveErrors <= after[2]!);
  t.true(before[3]! <= lo.receiveDrops && lo.receiveDrops <= after[3]!);
  t.true(before[10]! <= lo.transmitErrors && lo.transmitErrors <= after[10]!);
  t.true(before[11]! <= lo.transmitDrops && lo.transmitDrops <= after[11]!);
  const names = (await readFile('/proc/net/dev', 'utf8'))
    .split('\n')
    .filter((line) => line.includes(':'))
    .map((line) => line.slice(0, line.indexOf(':')).trim());
  t.deepEqual(snapshot.interfaces.map((link) => link.name).sort(), names.sort());
});

test('a disk carries a file written to it: its write history adds up to the file, within what /proc/diskstats counted', async (t) => {
  const dir = await mkdtemp(projectPath('dist/hostwatch-disk-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const before = await diskstatsWritten();
  const host = await startHostwatch(t, fast);
  const first = await host.snapshot();
  const holding = first.filesystems.filter((filesystem) => dir.startsWith(filesystem.mountPoint)).sort((a, b) => b.mountPoint.length - a.mountPoint.length)[0];
  const name = holding === undefined ? '' : basename(holding.device);
  if (!first.disks.some((disk) => disk.name === name)) {
    // Only where the folder's device is no block device /proc/diskstats counts (a container's overlay):
    // then hostwatch must not list it either, which is what is asserted.
    const counted = (await readFile('/proc/diskstats', 'utf8')).split('\n').map((line) => line.trim().split(/\s+/)[2]);
    t.false(counted.includes(name), `${name} is in /proc/diskstats but not among hostwatch's disks`);
    t.log(`the folder is on ${holding?.device ?? 'no listed filesystem'}, not a block device in /proc/diskstats: no write to measure`);
    return;
  }
  await snapshotWhere(host, (snapshot) => (snapshot.disks.find((disk) => disk.name === name)?.history.length ?? 0) >= 1);
  const size = 32 * 1024 * 1024;
  const file = await open(join(dir, 'data'), 'w');
  await file.write(Buffer.alloc(size, 7));
  await file.sync();
  await file.close();
  const snapshot = await snapshotWhere(host, (candidate) => {
    const disk = candidate.disks.find((entry) => entry.name === name);
    return disk !== undefined && integral(disk.history, (point) => point.write) >= size;
  });
  const written = (await diskstatsWritten()).get(name)! - before.get(name)!;
  const disk = snapshot.disks.find((entry) => entry.name === name)!;
  t.true(integral(disk.history, (point) => point.write) <= written + 1024, 'no more than the kernel counted');
});

test('temperatures are the hwmon sensors the machine has, none when it has none', async (t) => {
  const host = await startHostwatch(t, fast);
  const snapshot: Snapshot = await host.snapshot();
  let inputs = 0;
  const classDir = '/sys/class/hwmon';
  for (const chip of await readdir(classDir).catch(() => [])) {
    inputs += (await readdir(join(classDir, chip))).filter((file) => /^temp\d+_input$/.test(file)).length;
  }
  t.is(snapshot.temperatures.length, inputs);
});
