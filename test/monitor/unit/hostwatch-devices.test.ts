// Filesystems, disks, interfaces and temperatures: the parsers on recorded kernel tables, the rates
// and histories on made-up counters, the hwmon reader on a fixture sysfs tree.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { parseProcStatCores } from '../../../actors/monitor/sampler/cpu.js';
import { DeviceSampler } from '../../../actors/monitor/sampler/devices.js';
import { parseNetDev } from '../../../actors/monitor/sampler/interfaces.js';
import { HwmonReader } from '../../../actors/monitor/sampler/probes/hwmon.js';
import { LinuxProbe } from '../../../actors/monitor/sampler/probes/linux.js';
import { dataMounts, filesystemUsage, parseDiskstats, parseMountinfo } from '../../../actors/monitor/sampler/storage.js';
import { projectPath } from '../../helpers/process.js';

const fixture = (name: string) => projectPath(`test/monitor/fixtures/hostwatch/${name}`);
const recording = (name: string) => readFileSync(fixture(name), 'utf8');

test('mountinfo: pseudo filesystems, tmpfs and second mounts of one device are left out, as df does', (t) => {
  const mounts = dataMounts(parseMountinfo(recording('mountinfo.txt')));
  t.deepEqual(
    mounts.map((mount) => [mount.mountPoint, mount.source, mount.type]),
    [
      ['/', '/dev/vda1', 'ext4'],
      ['/boot/efi', '/dev/vda2', 'vfat'],
      ['/mnt/My Disk', '/dev/sdb', 'xfs'],
      ['/mnt/nas', 'nas:/export', 'nfs4'],
      ['/var/lib/docker/overlay2/5e1c/merged', 'overlay', 'overlay'],
    ],
  );
});

test('a bind mount listed before its whole filesystem gives way to it', (t) => {
  const text = [
    '44 26 8:1 /srv /data rw - ext4 /dev/sda1 rw',
    '26 1 8:1 / /home/user/data/long rw - ext4 /dev/sda1 rw',
    '27 1 8:1 / /d rw - ext4 /dev/sda1 rw',
  ].join('\n');
  t.deepEqual(
    dataMounts(parseMountinfo(text)).map((mount) => mount.mountPoint),
    ['/d'],
  );
});

test('statfs figures become bytes, and the percent is of used plus available as df counts it', (t) => {
  // 1000 blocks, 400 free of which 350 are available to users (50 reserved for root).
  t.deepEqual(filesystemUsage({ bsize: 4096, blocks: 1000, bfree: 400, bavail: 350 }), { usedBytes: 600 * 4096, totalBytes: 1000 * 4096, percent: 63.2 });
  t.is(filesystemUsage({ bsize: 4096, blocks: 0, bfree: 0, bavail: 0 }).percent, 0);
});

test('diskstats: sectors are 512 bytes, and devices that never did any I/O are left out', (t) => {
  t.deepEqual(parseDiskstats(recording('diskstats.txt')), [
    { name: 'loop1', readBytes: 2110 * 512, writtenBytes: 0 },
    { name: 'vda', readBytes: 15937546 * 512, writtenBytes: 48672032 * 512 },
    { name: 'vda1', readBytes: 15900000 * 512, writtenBytes: 48600000 * 512 },
    { name: 'nvme0n1', readBytes: 96000 * 512, writtenBytes: 64000 * 512 },
  ]);
});

test('/proc/net/dev: bytes, errors and drops each way, a long name run into its first figure', (t) => {
  const interfaces = parseNetDev(recording('net-dev.txt'));
  t.deepEqual(
    interfaces.map((link) => link.name),
    ['lo', 'eth0', 'wlp0s20f3123'],
  );
  t.deepEqual(interfaces[1], {
    name: 'eth0',
    receiveBytes: 2419050489,
    receiveErrors: 3,
    receiveDrops: 7,
    transmitBytes: 10956201,
    transmitErrors: 1,
    transmitDrops: 2,
  });
  t.is(interfaces[2]!.receiveBytes, 12345);
  t.is(interfaces[2]!.transmitBytes, 678);
});

test('rates are counter deltas over the time between readings; each device keeps its own history; loopback goes last', (t) => {
  const devices = new DeviceSampler(3);
  const link = (name: string, receiveBytes: number, transmitBytes: number) => ({
    name,
    receiveBytes,
    transmitBytes,
    receiveErrors: 0,
    transmitErrors: 1,
    receiveDrops: 0,
    transmitDrops: 0,
  });
  const filesystem = (percent: number) => ({ mountPoint: '/', device: '/dev/vda1', type: 'ext4', usedBytes: percent, totalBytes: 100, percent });
  devices.sample(100, {
    filesystems: [filesystem(10)],
    disks: [{ name: 'vda', readBytes: 0, writtenBytes: 0 }],
    interfaces: [link('lo', 0, 0), link('eth0', 0, 0)],
  });
  t.deepEqual(devices.disks()[0]!.history, [], 'a first reading has no rate yet');
  devices.sample(102, {
    filesystems: [filesystem(20)],
    disks: [{ name: 'vda', readBytes: 4096, writtenBytes: 1_000_000 }],
    interfaces: [link('lo', 10, 10), link('eth0', 2000, 500)],
  });
  devices.sample(103, {
    filesystems: [filesystem(30)],
    disks: [{ name: 'vda', readBytes: 4096, writtenBytes: 1_000_000 }],
    interfaces: [link('lo', 10, 10), link('eth0', 3000, 500)],
  });
  const [disk] = devices.disks();
  t.deepEqual(disk, {
    name: 'vda',
    readBytesPerSecond: 0,
    writeBytesPerSecond: 0,
    history: [
      { t: 102, read: 2048, write: 500_000 },
      { t: 103, read: 0, write: 0 },
    ],
  });
  const interfaces = devices.interfaces();
  t.deepEqual(
    interfaces.map((entry) => [entry.name, entry.loopback, entry.receiveBytesPerSecond]),
    [
      ['eth0', false, 1000],
      ['lo', true, 0],
    ],
  );
  t.is(interfaces[0]!.transmitErrors, 1);
  devices.sample(104, { filesystems: [filesystem(40)], disks: [], interfaces: [link('eth0', 1000, 500)] });
  t.deepEqual(devices.disks(), [], 'a device gone is dropped');
  t.is(devices.interfaces()[0]!.receiveBytesPerSecond, 0, 'a counter that went back (the interface was reset) gives no rate');
  t.deepEqual(
    devices.filesystems()[0]!.history.map((point) => point.v),
    [20, 30, 40],
    'the history keeps its window',
  );
});

test('hwmon: labelled sensors with their critical threshold, a file name where no label is given, chips without temperatures left out', (t) => {
  const sensors = new HwmonReader(fixture('sys')).read();
  t.deepEqual(sensors, [
    { chip: 'coretemp', label: 'Package id 0', celsius: 54, criticalCelsius: 100 },
    { chip: 'coretemp', label: 'Core 0', celsius: 51.5, criticalCelsius: 100 },
    { chip: 'coretemp', label: 'temp10', celsius: 49, criticalCelsius: null },
    { chip: 'nvme', label: 'Composite', celsius: 38.85, criticalCelsius: 84.85 },
  ]);
});

test('no hwmon tree at all gives no sensors, and the Linux probe takes its /sys root as a parameter', (t) => {
  t.deepEqual(new HwmonReader(fixture('no-such-sys')).read(), []);
  t.is(new LinuxProbe('/proc', fixture('sys')).temperatures().length, 4);
});

test('per-core times come from /proc/stat alone, with the fields os.cpus() takes', (t) => {
  const text = 'cpu  10 1 5 100 7 2 3 0 0 0\ncpu0 6 1 3 50 4 1 2 0 0 0\ncpu1 4 0 2 50 3 1 1 0 0 0\nintr 123\n';
  t.deepEqual(parseProcStatCores(text), [
    { user: 6, nice: 1, sys: 3, idle: 50, irq: 1 },
    { user: 4, nice: 0, sys: 2, idle: 50, irq: 1 },
  ]);
  t.is(parseProcStatCores(readFileSync('/proc/stat', 'utf8')).length, cpus().length);
});

test('the mount table is parsed again when its text changes, and a new data mount shows', (t) => {
  const procRoot = mkdtempSync(join(tmpdir(), 'hostwatch-proc-'));
  try {
    mkdirSync(join(procRoot, 'self'));
    const root = '20 1 254:1 / / rw,relatime - ext4 /dev/vda1 rw';
    writeFileSync(join(procRoot, 'self/mountinfo'), `${root}\n`);
    const probe = new LinuxProbe(procRoot, fixture('sys'));
    t.deepEqual(
      probe.filesystems().map((filesystem) => filesystem.mountPoint),
      ['/'],
    );
    writeFileSync(join(procRoot, 'self/mountinfo'), `${root}\n30 20 254:2 / ${tmpdir()} rw,relatime - ext4 /dev/vdb rw\n`);
    t.deepEqual(
      probe.filesystems().map((filesystem) => [filesystem.mountPoint, filesystem.device]),
      [
        ['/', '/dev/vda1'],
        [tmpdir(), '/dev/vdb'],
      ],
    );
  } finally {
    rmSync(procRoot, { recursive: true, force: true });
  }
});
