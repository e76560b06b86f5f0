import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { parsePsJsonLines, parseTop } from '../../../actors/monitor/sampler/containers.js';
import { cpuUsage } from '../../../actors/monitor/sampler/cpu.js';
import { parseMeminfo, parseSwapUsage, parseVmStat } from '../../../actors/monitor/sampler/memory.js';
import { listeningPorts, parseLsofListen, parseProcNetTcp } from '../../../actors/monitor/sampler/ports.js';
import { ProcStatReader, statFields } from '../../../actors/monitor/sampler/probes/proc-stat.js';
import { projectPath } from '../../helpers/process.js';
import { isLoopbackOnly } from '../../../src/net/address.js';

const recording = (name: string) => readFileSync(projectPath(`test/monitor/fixtures/hostwatch/${name}`), 'utf8');

test('CPU usage comes from counter deltas, per core and overall', (t) => {
  const before = [
    { user: 100, nice: 0, sys: 100, idle: 800, irq: 0 },
    { user: 0, nice: 0, sys: 0, idle: 1000, irq: 0 },
  ];
  const after = [
    { user: 190, nice: 0, sys: 110, idle: 800, irq: 0 },
    { user: 25, nice: 0, sys: 0, idle: 1075, irq: 0 },
  ];
  t.deepEqual(cpuUsage(before, after), { percent: 62.5, perCore: [100, 25] });
});

test('/proc/meminfo: used excludes the page cache, swap only when configured', (t) => {
  const figures = parseMeminfo('MemTotal: 1000 kB\nMemFree: 100 kB\nMemAvailable: 600 kB\nCached: 400 kB\nSwapTotal: 0 kB\nSwapFree: 0 kB\n');
  t.deepEqual(figures, { totalBytes: 1024000, availableBytes: 614400, usedBytes: 409600, swap: null, breakdown: null });
  const withSwap = parseMeminfo('MemTotal: 1000 kB\nMemAvailable: 600 kB\nSwapTotal: 2000 kB\nSwapFree: 1500 kB\n');
  t.deepEqual(withSwap.swap, { totalBytes: 2048000, usedBytes: 512000 });
  t.notThrows(() => parseMeminfo(recording('meminfo.txt')));
});

test('macOS vm_stat: used is active + wired + compressed', (t) => {
  const page = 16384;
  const figures = parseVmStat(recording('vm_stat.txt'), 17179869184);
  t.deepEqual(figures.breakdown, { activeBytes: 260611 * page, wiredBytes: 118433 * page, compressedBytes: 163296 * page });
  t.is(figures.usedBytes, (260611 + 118433 + 163296) * page);
  t.deepEqual(parseSwapUsage(recording('swapusage.txt')), { totalBytes: 3072 * 1024 ** 2, usedBytes: Math.round(2058.25 * 1024 ** 2) });
  t.is(parseSwapUsage('total = 0.00M  used = 0.00M  free = 0.00M'), null);
});

test('/proc/net/tcp and tcp6: listening sockets with addresses decoded', (t) => {
  const v4 = parseProcNetTcp(recording('proc-net-tcp.txt'), 'tcp');
  t.deepEqual(
    v4.map((socket) => `${socket.host}:${socket.port}`),
    ['0.0.0.0:2024', '127.0.0.1:56543', '127.0.0.1:18432', '127.0.0.1:18431'],
  );
  const v6 = parseProcNetTcp(recording('proc-net-tcp6.txt'), 'tcp6');
  t.deepEqual(
    v6.map((socket) => `${socket.host} ${socket.port} ${socket.inode}`),
    [':: 22 20511', '::1 631 20512', '::ffff:127.0.0.1 8080 20513', '2001:db8::1 443 20514'],
  );
  const ports = listeningPorts([...v4, ...v6], new Map([[1061, { pid: 10, name: 'sshd' }]]));
  t.deepEqual(
    ports.map((port) => port.address),
    ['[::]:22', '[2001:db8::1]:443', '0.0.0.0:2024'],
  );
  t.like(
    ports.find((port) => port.port === 2024),
    { process: 'sshd', pid: 10, protocol: 'tcp' },
  );
  t.true(isLoopbackOnly('127.0.0.53'));
  t.false(isLoopbackOnly('0.0.0.0'));
});

test('macOS lsof: listening ports, loopback left out, each address once', (t) => {
  t.deepEqual(
    parseLsofListen(recording('lsof-listen.txt')).map((port) => `${port.address} ${port.process} ${port.pid}`),
    ['[::]:22 launchd 1', '0.0.0.0:22 launchd 1', '192.168.1.20:3000 node 4242', '[fe80::1%lo0]:7000 Google  5120', '0.0.0.0:49152 rapportd 612'],
  );
});

test('docker ps JSON lines and docker top tables', (t) => {
  t.deepEqual(parsePsJsonLines(recording('docker-ps.jsonl')), [
    { id: '4f1c2e3b9a7d', name: 'web', image: 'nginx:1.27' },
    { id: '9b8a7c6d5e4f', name: 'cache', image: 'redis:7' },
  ]);
  const top = parseTop(recording('docker-top-web.txt').replace(/PID_A/g, '3001').replace(/PID_B/g, '3002'));
  t.deepEqual(top, [
    { pid: 3001, user: 'root', command: 'nginx: master process nginx -g daemon off;' },
    { pid: 3002, user: '101', command: 'nginx: worker process' },
  ]);
  const podman = parseTop('USER   PID   PPID  %CPU   ELAPSED   TTY  TIME   COMMAND\nroot   1     0     0.000  1h2m      ?    0s     sleep infinity\n');
  t.deepEqual(podman, [{ pid: 1, user: 'root', command: 'sleep infinity' }]);
  t.throws(() => parseTop('garbage'), { message: /unexpected top header/ });
});

test('/proc/<pid>/stat fields are read after the last parenthesis of the command name', (t) => {
  const line =
    '4242 (my (odd) name) S 17 4242 4242 0 -1 4194304 120 0 0 0 315 42 0 0 20 0 1 0 98765 12345678 2048 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n';
  const buffer = Buffer.from(line, 'latin1');
  t.deepEqual(statFields(buffer, buffer.length), { ppid: 17, utime: 315, stime: 42, starttime: 98765, rss: 2048 });
});

test('the stat reader gives each process its CPU share since the last read, and forgets a process that ended', (t) => {
  const procRoot = mkdtempSync(join(tmpdir(), 'hostwatch-proc-'));
  const writeStat = (pid: number, utime: number) => {
    mkdirSync(join(procRoot, String(pid)), { recursive: true });
    writeFileSync(join(procRoot, `${pid}/stat`), `${pid} (sleep) S 1 ${pid} ${pid} 0 -1 0 0 0 0 0 ${utime} 0 0 0 20 0 1 0 500 1000 3 0\n`);
  };
  const reader = new ProcStatReader(procRoot);
  try {
    writeStat(100, 10);
    writeStat(200, 0);
    const first = reader.read([100, 200, 300], 1000).map((stat) => ({ ...stat }));
    t.deepEqual(
      first.map((stat) => [stat.pid, stat.ppid, stat.cpuPercent, stat.startTicks]),
      [
        [100, 1, 0, 500],
        [200, 1, 0, 500],
      ],
      'no share on a first read; a pid with no stat file is left out',
    );
    t.is(first[0]!.rssBytes % 3, 0);
    writeStat(100, 60);
    rmSync(join(procRoot, '200'), { recursive: true });
    const second = reader.read([100], 3000);
    t.deepEqual(
      second.map((stat) => [stat.pid, stat.cpuPercent]),
      [[100, 25]],
      '50 ticks of 10 ms over 2 s: a quarter of a core',
    );
    t.true(reader.has(100));
    t.false(reader.has(200), 'a pid no longer listed is forgotten and its descriptor closed');
  } finally {
    reader.close();
    rmSync(procRoot, { recursive: true, force: true });
  }
});
