// The monitor dashboard in Chromium against the real hostwatch server: every panel filled from the
// live stream and moving as events arrive; the branches this machine may lack (swap, the macOS
// breakdown, containers, runtime tags) through a crafted stream; and the phone layout.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import test, { type ExecutionContext } from 'ava';
import type { BrowserContextOptions, Page } from 'playwright-core';
import type { ProcessRow, Snapshot } from '../../../actors/monitor/sampler/protocol.js';
import { assertAccessible } from '../../helpers/accessibility.js';
import { afterAnimation, endlessAnimations, newPage, openPage, saveScreenshot, text } from '../../helpers/browser.js';
import { startHostwatch } from '../../helpers/hostwatch.js';

// Reduced motion turns off the bars' transitions, so a colour read back is the final one.
const desktop: BrowserContextOptions = { viewport: { width: 1280, height: 900 }, reducedMotion: 'reduce' };
const phone: BrowserContextOptions = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, reducedMotion: 'reduce' };
const bytes = /^\d+(\.\d)? (B|KiB|MiB|GiB|TiB|PiB)$/;
const percent = /^\d+(\.\d)?%$/;
const clock = /^updated \d\d:\d\d:\d\d$/;
const MiB = 2 ** 20;
const GiB = 2 ** 30;

/** Listens on a free port until the test ends. */
async function listen(t: ExecutionContext, server: Server, host: string): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  t.teardown(() => {
    server.closeAllConnections();
    server.close();
  });
  return (server.address() as AddressInfo).port;
}

/** A socket on every interface, so the ports panel has a row this test can expect. */
function listenOnAllInterfaces(t: ExecutionContext): Promise<number> {
  return listen(t, createServer(), '0.0.0.0');
}

/** An event stream that sends `snapshot` once and stays open, as hostwatch's does; returns its URL. */
async function serveStream(t: ExecutionContext, snapshot: Snapshot): Promise<string> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store' });
    response.write(`event: snapshot\ndata: ${JSON.stringify(snapshot)}\n\n`);
  });
  return `http://127.0.0.1:${await listen(t, server, '127.0.0.1')}/api/stream`;
}

async function waitUntilLive(page: Page): Promise<void> {
  await page.locator('#connection-label', { hasText: /^live$/ }).waitFor();
  await page.locator('#updated', { hasText: clock }).waitFor();
}

/** Every row of a table body as its cells' text. */
async function tableText(page: Page, bodySelector: string): Promise<string[][]> {
  const rows = await page.locator(`${bodySelector} tr`).all();
  return Promise.all(rows.map(async (row) => (await row.locator('td').allTextContents()).map((cell) => cell.trim())));
}

interface MeterReading {
  label: string | null;
  value: number;
  level: string;
  colour: string;
}

// Page code as text: the tests compile without the DOM library.
const readMeters = `[...document.querySelectorAll('.meter')].filter((meter) => meter.checkVisibility()).map((meter) => ({
  label: meter.getAttribute('aria-label'),
  value: Number(meter.getAttribute('aria-valuenow')),
  level: meter.dataset.level,
  colour: getComputedStyle(meter, '::before').backgroundColor,
}))`;

function colourName(rgb: string): string {
  const [r = 0, g = 0, b = 0] = (rgb.match(/\d+/g) ?? []).map(Number);
  if (g > r && g > b) return 'green';
  if (r > 150 && g > 130 && b < 120) return 'yellow';
  if (r > 2 * g && r > 2 * b) return 'red';
  return rgb;
}

/** Every visible bar: green below 50%, yellow from 50% to 80%, red above. */
async function checkMeterColours(t: ExecutionContext, page: Page): Promise<MeterReading[]> {
  const meters = await page.evaluate<MeterReading[]>(readMeters);
  for (const meter of meters) {
    const level = meter.value > 80 ? 'high' : meter.value >= 50 ? 'medium' : 'low';
    t.is(meter.level, level, `${meter.label} at ${meter.value}%`);
    t.is(colourName(meter.colour), { low: 'green', medium: 'yellow', high: 'red' }[level], `${meter.label} at ${meter.value}% is ${meter.colour}`);
  }
  return meters;
}

async function graphLine(page: Page, metric: 'cpu' | 'memory') {
  const line = page.locator(`#${metric}-history .graph-line`);
  return { d: (await line.getAttribute('d')) ?? '', points: Number(await line.getAttribute('data-points')), box: await line.boundingBox() };
}

test.serial('every panel fills from the live stream and moves as events arrive', async (t) => {
  const port = await listenOnAllInterfaces(t);
  const hostwatch = await startHostwatch(t);
  const expected = await hostwatch.snapshot();
  const { page, problems } = await openPage(t, hostwatch.url, desktop);
  await waitUntilLive(page);
  const first = { updated: await text(page, '#updated'), cpu: await graphLine(page, 'cpu'), memory: await graphLine(page, 'memory') };
  await page.locator('#updated', { hasNotText: first.updated }).waitFor({ timeout: 8000 });
  // Each graph is redrawn from the stream on its own; a later event may be the one that moves it.
  for (const metric of ['cpu', 'memory'] as const) {
    // Not moved within the bound: the assertion below says so.
    await page
      .locator(`#${metric}-history .graph-line:not([d="${first[metric].d}"])`)
      .waitFor({ timeout: 8000 })
      .catch(() => {});
  }

  const { machine } = expected;
  t.is(await text(page, '#host-title'), machine.hostname);
  t.is(await page.title(), `${machine.hostname} · hostwatch`);
  t.is(await text(page, '#machine-hostname'), machine.hostname);
  t.is(await text(page, '#machine-os'), machine.os);
  t.is(await text(page, '#machine-kernel'), machine.kernel);
  t.is(await text(page, '#machine-arch'), machine.arch);
  t.is(await text(page, '#machine-cpu'), machine.cpuModel);
  t.is(await text(page, '#machine-cores'), `${machine.physicalCores} physical / ${machine.logicalCores} logical`);
  t.regex(await text(page, '#machine-memory'), bytes);
  t.regex(await text(page, '#machine-uptime'), /^(\d+d )?(\d+h )?\d+m$/);

  t.regex(await text(page, '#cpu-total'), percent);
  t.is(await page.locator('#cpu-cores .meter').count(), machine.logicalCores);
  for (const load of ['#cpu-load-1', '#cpu-load-5', '#cpu-load-15']) t.regex(await text(page, load), /^\d+\.\d\d$/);
  const meters = await checkMeterColours(t, page);
  const sensorBars = expected.temperatures.filter((sensor) => sensor.criticalCelsius !== null).length;
  t.is(meters.length, 2 + machine.logicalCores + (expected.memory.swap === null ? 0 : 1) + expected.filesystems.length + sensorBars);

  // Filesystems, disks and interfaces: one item each, in the server's order, with its figures.
  t.deepEqual(
    await page.locator('#filesystems-list .device-name').allTextContents(),
    expected.filesystems.map((filesystem) => filesystem.mountPoint),
  );
  for (const caption of await page.locator('#filesystems-list .meter-caption span:last-child').allTextContents()) {
    t.regex(caption, /^\d+(\.\d)? \w+ \/ \d+(\.\d)? \w+$/);
  }
  t.deepEqual(
    await page.locator('#interfaces-list .device-name').allTextContents(),
    expected.interfaces.map((link) => link.name),
  );
  t.deepEqual(
    await page.locator('#disks-list .device-name').allTextContents(),
    expected.disks.map((disk) => disk.name),
  );
  for (const rate of await page.locator('#interfaces-list .rate, #disks-list .rate').allTextContents()) t.regex(rate, /^[↓↑RW] \d+(\.\d)? \w+\/s$/);
  const sparklinePoints = await page.locator('#interfaces-list .sparkline').first().getAttribute('data-points');
  t.true(Number(sparklinePoints) >= 1, `the first interface's sparkline has ${sparklinePoints} points`);
  t.is(await page.locator('#temperatures').isVisible(), expected.temperatures.length > 0);

  t.regex(await text(page, '#memory-percent'), percent);
  for (const figure of ['#memory-used', '#memory-available', '#memory-total']) t.regex(await text(page, figure), bytes);
  t.is(await page.locator('#swap').isVisible(), expected.memory.swap !== null);
  t.is(await page.locator('#memory-breakdown').isVisible(), expected.memory.breakdown !== null);

  for (const metric of ['cpu', 'memory'] as const) {
    const now = await graphLine(page, metric);
    t.true(now.points >= 2, `${metric} history has ${now.points} points`);
    t.true((now.box?.width ?? 0) > 0, `${metric} history line is drawn`);
    t.not(now.d, first[metric].d, `${metric} history moved with the next event`);
    t.regex(await text(page, `#${metric}-history-now`), percent);
  }

  const processes = await tableText(page, '#processes-body');
  t.true(processes.length > 0);
  for (const [name, cpu, memory, source] of processes) {
    t.truthy(name);
    t.regex(cpu ?? '', percent);
    t.regex(memory ?? '', bytes);
    t.truthy(source);
  }
  if (expected.processes.some((row) => row.runtime !== null)) t.true((await page.locator('#processes-body .tag-runtime').count()) > 0);

  const listening = expected.network.find((entry) => entry.port === port);
  t.truthy(listening, `the server reports the test's socket on port ${port}`);
  const ports = await tableText(page, '#ports-body');
  t.deepEqual(
    ports.find(([shown]) => shown === String(port)),
    [String(port), listening?.address ?? '', listening?.process === '' ? 'unknown' : (listening?.process ?? '')],
  );

  const runtime = machine.containerRuntime;
  if (runtime.available) {
    t.is(await text(page, '#containers-runtime'), `${runtime.name} ${runtime.version}`);
    t.true(await page.locator('#containers-table').isVisible());
    t.true((await page.locator('#containers-body tr').count()) > 0);
  } else {
    t.true(await page.locator('#containers-reason').isVisible());
    t.is(await text(page, '#containers-reason'), runtime.reason);
  }

  for (const panel of await page.locator('.panel:not(#temperatures)').all()) t.true(await panel.isVisible());
  // With motion allowed (the pages above reduce it), the live dot beats once per snapshot and nothing
  // animates forever: between snapshots an open dashboard draws nothing. Read from the DOM and the
  // computed style, not from frames: a page in the background of a loaded machine may draw none.
  const moving = await openPage(t, hostwatch.url, { viewport: desktop.viewport });
  await waitUntilLive(moving.page);
  await moving.page.waitForFunction("document.querySelector('.connection-dot').classList.contains('beat')", undefined, { timeout: 8000, polling: 100 });
  t.deepEqual(await afterAnimation(moving.page, '.connection-dot.beat'), ['beat', '1'], 'the live dot beats once when a snapshot arrives');
  t.is(await endlessAnimations(moving.page), 0, 'no endless animation');
  t.deepEqual(moving.problems, []);
  t.deepEqual(problems, []);
  t.log(await saveScreenshot(page, 'monitor-desktop'));
  t.log(await saveScreenshot(page, 'monitor-desktop-full', { fullPage: true }));
  await assertAccessible(t, page, 'the dashboard on a desktop');
});

function craftedProcess(name: string, row: Partial<ProcessRow>): ProcessRow {
  return { name, count: 1, pids: [4242], cpuPercent: 1.5, memoryBytes: 5 * MiB, memoryPercent: 0.1, source: 'alice', container: false, runtime: null, ...row };
}

/** The real snapshot with everything this machine may lack switched on. */
function craftSnapshot(real: Snapshot): Snapshot {
  const now = real.timestamp;
  const history = (values: number[]) => values.map((v, index) => ({ t: now - 2 * (values.length - 1 - index), v }));
  return {
    ...real,
    machine: { ...real.machine, containerRuntime: { available: true, name: 'docker', version: '27.3.1' } },
    cpu: { ...real.cpu, percent: 50, perCore: [10, 49.9, 50, 80, 80.1, 100], history: history([20, 60, 90]) },
    memory: {
      ...real.memory,
      swap: { totalBytes: 4 * GiB, usedBytes: GiB, percent: 25 },
      breakdown: { activeBytes: 3 * GiB, wiredBytes: GiB, compressedBytes: 512 * MiB },
      history: history([40, 41, 42]),
    },
    processes: [
      craftedProcess('<img src=x onerror="document.title=1">', { count: 3, runtime: { name: 'python', version: '3.11.2' } }),
      craftedProcess('server.js', { runtime: { name: 'node', version: '20.19.0' }, source: 'web-1', container: true }),
    ],
    containers: [{ container: 'web-1', image: 'node:20', pid: 4243, user: 'node', command: 'node /app/server.js', cpuPercent: 2.5, memoryBytes: 80 * MiB }],
    filesystems: [
      { mountPoint: '/', device: '/dev/nvme0n1p2', type: 'ext4', usedBytes: 30 * GiB, totalBytes: 100 * GiB, percent: 30, history: history([29, 30]) },
      { mountPoint: '/srv/backups', device: 'nas:/export', type: 'nfs4', usedBytes: 650 * GiB, totalBytes: 1000 * GiB, percent: 65, history: history([65]) },
      { mountPoint: '/var/lib/docker', device: '/dev/sdb1', type: 'xfs', usedBytes: 92 * GiB, totalBytes: 100 * GiB, percent: 92, history: history([92]) },
    ],
    disks: [{ name: 'nvme0n1', readBytesPerSecond: 5 * MiB, writeBytesPerSecond: 512, history: [{ t: now, read: 5 * MiB, write: 512 }] }],
    interfaces: [
      {
        name: 'eth0',
        loopback: false,
        receiveBytesPerSecond: 12 * MiB,
        transmitBytesPerSecond: 300 * 1024,
        receiveErrors: 2,
        transmitErrors: 0,
        receiveDrops: 5,
        transmitDrops: 0,
        history: [{ t: now, receive: 12 * MiB, transmit: 300 * 1024 }],
      },
      {
        name: 'lo',
        loopback: true,
        receiveBytesPerSecond: 0,
        transmitBytesPerSecond: 0,
        receiveErrors: 0,
        transmitErrors: 0,
        receiveDrops: 0,
        transmitDrops: 0,
        history: [],
      },
    ],
    temperatures: [
      { chip: 'coretemp', label: 'Package id 0', celsius: 54, criticalCelsius: 100 },
      { chip: 'nvme', label: 'Composite', celsius: 80, criticalCelsius: 84.85 },
      { chip: 'acpitz', label: 'temp1', celsius: 27.8, criticalCelsius: null },
    ],
  };
}

test.serial('swap, the macOS breakdown, runtime and container tags and bar colours render from the stream', async (t) => {
  const hostwatch = await startHostwatch(t);
  const craftedStream = await serveStream(t, craftSnapshot(await hostwatch.snapshot()));
  const { page, problems } = await newPage(t, desktop);
  // The page's stream request goes to the crafted stream instead, transparently to the page.
  await page.route('**/api/stream', (route) => route.continue({ url: craftedStream }));
  await page.goto(hostwatch.url);
  await waitUntilLive(page);

  const coreLevels = await Promise.all((await page.locator('#cpu-cores .meter').all()).map((meter) => meter.getAttribute('data-level')));
  t.deepEqual(coreLevels, ['low', 'low', 'medium', 'medium', 'high', 'high']);
  await checkMeterColours(t, page);

  t.true(await page.locator('#swap').isVisible());
  t.is(await text(page, '#swap-used'), '1.0 GiB / 4.0 GiB');
  t.is(await text(page, '#swap-percent'), '25.0%');
  t.true(await page.locator('#memory-breakdown').isVisible());
  t.deepEqual(
    [await text(page, '#memory-active'), await text(page, '#memory-wired'), await text(page, '#memory-compressed')],
    ['3.0 GiB', '1.0 GiB', '512 MiB'],
  );

  const cpuLine = await graphLine(page, 'cpu');
  t.is(cpuLine.points, 3);
  // Six seconds of a two-minute window: the line starts near the right edge instead of stretching.
  t.true(Number(/^M([\d.]+),/.exec(cpuLine.d)?.[1]) > 550, cpuLine.d);

  const processes = await tableText(page, '#processes-body');
  t.deepEqual(processes, [
    ['<img src=x onerror="document.title=1">x3python 3.11', '1.5%', '5.0 MiB', 'alice'],
    ['server.jsnode 20.19', '1.5%', '5.0 MiB', 'web-1'],
  ]);
  t.is(await page.locator('#processes-body img').count(), 0);
  t.is(await page.locator('#processes-body .tag-container').count(), 1);
  const tagColour = (runtime: string) => page.evaluate<string>(`getComputedStyle(document.querySelector('[data-runtime="${runtime}"]')).color`);
  t.not(await tagColour('python'), await tagColour('node'));

  t.false(await page.locator('#containers-reason').isVisible());
  t.is(await text(page, '#containers-runtime'), 'docker 27.3.1');
  t.deepEqual(await tableText(page, '#containers-body'), [['web-1', 'node /app/server.js', '2.5%', '80.0 MiB']]);

  const fullness = await Promise.all((await page.locator('#filesystems-list .meter').all()).map((meter) => meter.getAttribute('data-level')));
  t.deepEqual(fullness, ['low', 'medium', 'high'], 'filesystems: green, yellow from 50%, red past 80%');
  t.deepEqual(await page.locator('#filesystems-list .meter-caption').allTextContents(), [
    '/dev/nvme0n1p2 · ext430.0 GiB / 100 GiB',
    'nas:/export · nfs4650 GiB / 1000 GiB',
    '/dev/sdb1 · xfs92.0 GiB / 100 GiB',
  ]);
  t.deepEqual(await page.locator('#disks-list .rate').allTextContents(), ['R 5.0 MiB/s', 'W 512 B/s']);
  t.deepEqual(await page.locator('#interfaces-list .rate').allTextContents(), ['↓ 12.0 MiB/s', '↑ 300 KiB/s', '↓ 0 B/s', '↑ 0 B/s']);
  t.deepEqual(await page.locator('#interfaces-list .device-note-alert').allTextContents(), ['errors 2 · drops 5']);
  t.true(await page.locator('#temperatures').isVisible());
  t.deepEqual(await page.locator('#temperatures-list .sensor-value').allTextContents(), ['54.0 °C', '80.0 °C', '27.8 °C']);
  const sensorLevels = await Promise.all((await page.locator('#temperatures-list .meter').all()).map((meter) => meter.getAttribute('data-level')));
  t.deepEqual(sensorLevels, ['medium', 'high', null], 'a sensor is coloured by how near its critical threshold it is');
  t.false(await page.locator('#temperatures-list .meter').nth(2).isVisible(), 'no bar without a critical threshold');
  t.deepEqual(problems, []);
  t.log(await saveScreenshot(page, 'monitor-desktop-crafted', { fullPage: true }));
  await assertAccessible(t, page, 'the dashboard with every panel filled');
});

test.serial('on a phone the page fits the screen, and says so when the server goes away', async (t) => {
  const hostwatch = await startHostwatch(t);
  const { page, problems } = await openPage(t, hostwatch.url, phone);
  await waitUntilLive(page);
  await page.locator('#processes-body tr').first().waitFor();

  t.true((await page.evaluate<number>('document.documentElement.scrollWidth')) <= 390, 'no sideways scrolling of the page');
  for (const panel of await page.locator('.panel:visible').all()) {
    const box = await panel.boundingBox();
    t.true(box !== null && box.x >= 0 && box.x + box.width <= 390, `a panel spans ${JSON.stringify(box)}`);
  }
  t.deepEqual(problems, []);
  t.log(await saveScreenshot(page, 'monitor-phone'));
  await page.locator('#filesystems-list').scrollIntoViewIfNeeded();
  t.log(await saveScreenshot(page, 'monitor-phone-devices'));
  t.log(await saveScreenshot(page, 'monitor-phone-full', { fullPage: true }));
  await assertAccessible(t, page, 'the dashboard on a phone');

  hostwatch.child.kill('SIGTERM');
  await hostwatch.exited;
  await page.locator('#connection-label', { hasText: 'reconnecting…' }).waitFor();
  t.is(await page.locator('body').getAttribute('data-connection'), 'reconnecting');
});
