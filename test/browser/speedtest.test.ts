// The speed test page in Chromium against the real netspeed server: a whole test from the Start button
// (phases in order, each as long as the server says, the dial live and moving during download, plausible
// figures in the summary), a test the server refuses halfway, and the phone layout before and after a test.
import { createServer, request as forwardRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import test, { type ExecutionContext } from 'ava';
import type { BrowserContextOptions, Page } from 'playwright-core';
import type { SpeedtestInfo } from '../../actors/speedtest/site/protocol.js';
import { afterAnimation, endlessAnimations, newPage, openPage, saveScreenshot } from '../helpers/browser.js';
import { projectPath, startProcess } from '../helpers/process.js';

/** The shortest phases the tests ask of the server; the whole-test run lengthens them on a slow machine. */
const phaseSeconds = 2;
// Markup in the name must come out as text.
const serverName = 'Rack 7 <lab>';
const desktop: BrowserContextOptions = { viewport: { width: 1280, height: 900 } };
const phone: BrowserContextOptions = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };

interface PhaseChange {
  phase: string;
  at: number;
}

/** Starts the real netspeed server on a free loopback port with short phases; returns its URL and /api/info. */
async function startNetspeed(t: ExecutionContext, seconds = phaseSeconds): Promise<{ url: string; info: SpeedtestInfo }> {
  const server = startProcess(t, process.execPath, [projectPath('dist/bin/netspeed.js'), 'server', '-H', '127.0.0.1', '-p', '0', '-d', String(seconds), '-q', '-n', serverName]);
  const [url] = await server.waitFor(/^http:\/\/127\.0\.0\.1:\d+\/$/m);
  const response = await fetch(`${url}api/info`);
  t.is(response.status, 200);
  return { url, info: (await response.json()) as SpeedtestInfo };
}

// Page code as text: the tests compile without the DOM library.
const recordPhases = `(() => {
  const log = [{ phase: document.body.dataset.phase, at: performance.now() }];
  window.phaseLog = log;
  new MutationObserver(() => log.push({ phase: document.body.dataset.phase, at: performance.now() }))
    .observe(document.body, { attributes: true, attributeFilter: ['data-phase'] });
})()`;

interface DialReading {
  phase: string;
  label: string;
  unit: string;
  value: string;
  graph: string;
  /** The printed figure in every animation frame for 250 ms. */
  frames: string[];
}

/** Half a second into the phase the dial has climbed to the link's rate; read in the page, so CDP's latency cannot push it past the phase. */
const readDial = `new Promise((resolve) => setTimeout(() => {
  const text = (id) => document.getElementById(id).textContent.trim();
  const frames = [];
  const started = performance.now();
  const frame = () => {
    frames.push(text('gauge-value'));
    if (performance.now() - started < 250) {
      requestAnimationFrame(frame);
      return;
    }
    resolve({
      phase: document.body.dataset.phase,
      label: text('gauge-phase'),
      unit: text('gauge-unit'),
      value: text('gauge-value'),
      graph: document.getElementById('live-graph-line').getAttribute('d') ?? '',
      frames,
    });
  };
  requestAnimationFrame(frame);
}, 500))`;

async function text(page: Page, selector: string): Promise<string> {
  return ((await page.locator(selector).textContent()) ?? '').trim();
}

async function waitForPhase(page: Page, phase: string, timeout = 15_000): Promise<void> {
  await page.locator(`body[data-phase="${phase}"]`).waitFor({ state: 'attached', timeout });
}

/** Nothing on the page is wider than the phone's screen. */
async function checkFitsPhone(t: ExecutionContext, page: Page): Promise<void> {
  t.true((await page.evaluate<number>('document.documentElement.scrollWidth')) <= 390, 'no sideways scrolling of the page');
  for (const panel of await page.locator('.panel:visible').all()) {
    const box = await panel.boundingBox();
    t.true(box !== null && box.x >= 0 && box.x + box.width <= 390, `a panel spans ${JSON.stringify(box)}`);
  }
}

test.serial('a whole test runs ping, download and upload with a live dial and ends in a plausible summary', async (t) => {
  // The dial is read and the page photographed within the download phase: measured here on the idle
  // page, the phases are made long enough for both three times over, so that a slow or loaded machine
  // photographs the download and not the upload after it.
  const measuring = await startNetspeed(t);
  const { page, problems } = await openPage(t, measuring.url, desktop);
  await waitForPhase(page, 'idle');
  const before = performance.now();
  await page.evaluate<DialReading>(readDial);
  await saveScreenshot(page, 'speedtest-idle');
  const seconds = Math.max(phaseSeconds, Math.ceil((3 * (performance.now() - before)) / 1000));
  t.log(`reading the dial and a screenshot took ${(performance.now() - before).toFixed(0)} ms: phases of ${seconds} s`);

  const { url, info } = await startNetspeed(t, seconds);
  t.is(info.name, serverName);
  t.is(info.test_duration, seconds);
  await page.goto(url);
  await waitForPhase(page, 'idle');
  t.is(await text(page, '#server-name'), serverName);
  t.is(await page.title(), `${serverName} · netspeed`);
  t.false(await page.locator('#summary').isVisible());
  await page.evaluate(recordPhases);

  await page.locator('#start').click();
  await waitForPhase(page, 'download');
  const dial = await page.evaluate<DialReading>(readDial);
  t.log(await saveScreenshot(page, 'speedtest-download'));
  t.is(await page.locator('body').getAttribute('data-phase'), 'download', 'the screenshot is of the download');
  t.is(dial.phase, 'download');
  t.is(dial.label, 'Download');
  t.is(dial.unit, 'Mbps');
  t.true(Number(dial.value) > 1, `the dial shows ${dial.value} Mbps`);
  t.true(dial.graph.length > 0, 'the live graph is drawn');
  t.true(new Set(dial.frames).size >= 3, `the dial moves between frames: ${dial.frames.join(' ')}`);

  await waitForPhase(page, 'done', 20_000);
  await page.locator('#summary').waitFor();
  const phases = await page.evaluate<PhaseChange[]>('window.phaseLog');
  t.deepEqual(
    phases.map((change) => change.phase),
    ['idle', 'ping', 'download', 'upload', 'done'],
  );
  for (let index = 1; index < phases.length - 1; index += 1) {
    const lasted = (phases[index + 1]?.at ?? 0) - (phases[index]?.at ?? 0);
    // Each phase lasts the server's duration, and ends soon after it: aborted transfers do not linger.
    t.true(lasted >= seconds * 1000 - 50 && lasted < seconds * 1000 + 1500, `${phases[index]?.phase} lasted ${lasted.toFixed(0)} ms`);
  }

  const ping = await text(page, '#result-ping');
  const jitter = await text(page, '#result-jitter');
  const download = await text(page, '#result-download');
  const upload = await text(page, '#result-upload');
  t.log(`ping ${ping} ms, jitter ${jitter} ms, download ${download} Mbps, upload ${upload} Mbps (${await text(page, '#result-upload-caption')})`);
  t.regex(ping, /^\d+\.\d$/);
  t.true(Number(ping) > 0 && Number(ping) < 1000, `ping ${ping} ms`);
  t.regex(jitter, /^\d+\.\d$/);
  t.true(Number(jitter) < 1000, `jitter ${jitter} ms`);
  for (const rate of [download, upload]) {
    t.regex(rate, /^\d+\.\d\d$/);
    t.true(Number(rate) > 1, `${rate} Mbps`);
  }
  t.regex(await text(page, '#result-upload-caption'), /^as the (server received|browser sent) it$/);
  t.regex(await text(page, '#result-ping-caption'), /^min \d+\.\d · median \d+\.\d$/);
  for (const phase of ['download', 'upload']) {
    t.regex(await text(page, `#loaded-${phase}`), /^\d+\.\d ms$/);
    t.regex(await text(page, `#loaded-${phase}-increase`), /^[+−±]\d+\.\d ms$/);
  }
  t.regex(await text(page, '#bloat-grade'), /^(A\+|A|B|C|D|F)$/);
  t.regex((await page.locator('#bloat-grade').getAttribute('data-level')) ?? '', /^(low|medium|high)$/);
  t.is(await text(page, '#step-ping-value'), `${ping} ms`);
  t.is(await text(page, '#step-download-value'), `${download} Mbps`);
  t.is(await text(page, '#step-upload-value'), `${upload} Mbps`);
  t.is(await text(page, '#summary-server'), serverName);
  t.is(await text(page, '#gauge-phase'), 'Test complete');
  t.true(await page.locator('#run-again').isEnabled());
  t.false(await page.locator('#problem').isVisible());
  t.deepEqual(problems, []);
  t.log(await saveScreenshot(page, 'speedtest-summary'));
});

test.serial('on a phone the dial and the summary fit the screen', async (t) => {
  const { url } = await startNetspeed(t);
  const { page, problems } = await openPage(t, url, phone);
  await waitForPhase(page, 'idle');
  t.is(await text(page, '#server-name'), serverName);
  await checkFitsPhone(t, page);
  const start = await page.locator('#start').boundingBox();
  t.true(start !== null && start.width >= 120 && start.height >= 120, `the start button is ${JSON.stringify(start)}`);
  // The start button beckons a few times and then rests: a page left waiting draws nothing.
  t.deepEqual(await afterAnimation(page, '#start'), ['beckon', '4']);
  t.is(await endlessAnimations(page), 0, 'no endless animation');
  t.log(await saveScreenshot(page, 'speedtest-phone'));

  await page.locator('#start').tap();
  await waitForPhase(page, 'done', 20_000);
  await page.locator('#summary').waitFor();
  await checkFitsPhone(t, page);
  t.regex(await text(page, '#result-download'), /^\d+\.\d\d$/);
  t.deepEqual(problems, []);
  t.log(await saveScreenshot(page, 'speedtest-phone-summary', { fullPage: true }));
});

/** What a front does with one request: answer it itself, or `forward` it (now or later) to the server. */
type FrontHandler = (request: IncomingMessage, response: ServerResponse, forward: () => void) => void;

/** A front for the netspeed server at `target` that hands each request to `handle` first. */
async function frontFor(t: ExecutionContext, target: string, handle: FrontHandler): Promise<string> {
  const upstream = new URL(target);
  const front = createServer((request, response) => {
    handle(request, response, () => {
      const forwarded = forwardRequest({ host: upstream.hostname, port: upstream.port, path: request.url, method: request.method, headers: request.headers }, (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      });
      forwarded.on('error', () => response.destroy());
      request.pipe(forwarded);
    });
  });
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    front.closeAllConnections();
    front.close();
  });
  return `http://127.0.0.1:${(front.address() as AddressInfo).port}/`;
}

/**
 * A front that refuses every upload with 503, as a server shutting down would, and passes everything
 * else through. (Playwright's request interception missed some of the page's XMLHttpRequest uploads,
 * which then succeeded.)
 */
function refusingUploads(t: ExecutionContext, target: string): Promise<string> {
  return frontFor(t, target, (request, response, forward) => {
    if (request.url?.startsWith('/api/upload') !== true) return forward();
    request.resume();
    response.writeHead(503, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'shutting down' }));
  });
}

test.serial('a refused upload stops the test, says why, and offers a retry', async (t) => {
  const { url: serverUrl } = await startNetspeed(t);
  const url = await refusingUploads(t, serverUrl);
  const { page, problems } = await newPage(t, desktop);
  await page.goto(url);
  await waitForPhase(page, 'idle');
  await page.locator('#start').click();
  await waitForPhase(page, 'failed', 20_000);

  t.is(await text(page, '#problem'), 'The test stopped: the server answered /api/upload with 503: shutting down');
  t.regex(await text(page, '#step-download-value'), /^\d+\.\d\d Mbps$/);
  t.is(await text(page, '#step-upload-value'), 'failed');
  t.is(await text(page, '#start'), 'Retry');
  t.true(await page.locator('#start').isVisible());
  t.false(await page.locator('#summary').isVisible());
  // Chromium logs the refused requests itself; nothing else may go wrong.
  t.deepEqual(
    problems.filter((problem) => !problem.includes('503')),
    [],
  );
  t.log(await saveScreenshot(page, 'speedtest-refused'));
});

test.serial('the page runs under its content security policy: injected inline script is blocked and reported', async (t) => {
  const { url } = await startNetspeed(t);
  const { page, problems } = await openPage(t, url, desktop);
  await waitForPhase(page, 'idle');
  t.deepEqual(problems, [], 'the page itself breaks no rule');
  const ran = await page.evaluate<boolean>(`(() => {
    window.inlineRan = false;
    const script = document.createElement('script');
    script.textContent = 'window.inlineRan = true';
    document.body.append(script);
    return window.inlineRan;
  })()`);
  t.false(ran, 'the inline script did not run');
  // The violation event and its report to this process arrive a little after the refusal.
  const deadline = Date.now() + 10_000;
  while (!problems.some((problem) => problem.startsWith('csp: ')) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  t.true(
    problems.some((problem) => /^csp: script-src(-elem)? blocked inline /.test(problem)),
    problems.join('\n'),
  );
});

interface DialFrame {
  phase: string;
  /** The printed figure and the top tick's value after a change. */
  value: number;
  top: number;
  /** The steps lit as running. */
  active: string[];
}

/**
 * Records the dial and the steps after every change of the page's text or of a step's or the page's
 * state (a mutation observer runs after each change, before the next paint), from now on.
 */
const recordDialFrames = `(() => {
  const frames = [];
  window.dialFrames = frames;
  const tickValue = (text) => (text.endsWith('k') ? Number(text.slice(0, -1)) * 1000 : Number(text));
  new MutationObserver(() => {
    const labels = document.querySelectorAll('.gauge-label');
    frames.push({
      phase: document.body.dataset.phase,
      value: Number(document.getElementById('gauge-value').textContent),
      top: tickValue(labels[labels.length - 1].textContent),
      active: [...document.querySelectorAll('.step[data-state="active"]')].map((step) => step.id.replace('step-', '')),
    });
  }).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ['data-state', 'data-phase'] });
})()`;

/** Pings this slow put the ping dial on its 0-1000 ms scale, past the 0-100 Mbps the download starts on. */
const slowPingMs = 300;

test.serial('each phase starts its dial from zero on its own scale, so no figure is past the top tick; only the running phase is lit', async (t) => {
  const { url: serverUrl } = await startNetspeed(t);
  const url = await frontFor(t, serverUrl, (request, _response, forward) => {
    if (request.url?.startsWith('/api/ping') === true) setTimeout(forward, slowPingMs);
    else forward();
  });
  const { page, problems } = await openPage(t, url, desktop);
  await waitForPhase(page, 'idle');
  await page.evaluate(recordDialFrames);
  await page.locator('#start').click();
  await waitForPhase(page, 'upload', 30_000);
  t.log(await saveScreenshot(page, 'speedtest-upload'));
  await waitForPhase(page, 'done', 30_000);
  const frames = (await page.evaluate<DialFrame[]>('window.dialFrames')).filter((frame) => ['ping', 'download', 'upload'].includes(frame.phase));
  t.true(frames.some((frame) => frame.phase === 'ping' && frame.top === 1000), 'the slow pings widened the ping scale');
  t.true(frames.some((frame) => frame.phase === 'download'));
  t.deepEqual(frames.filter((frame) => frame.value > frame.top).slice(0, 3), [], 'a figure past the top tick');
  t.deepEqual(frames.filter((frame) => frame.active.some((step) => step !== frame.phase)).slice(0, 3), [], 'a step lit that is not the phase running');
  t.deepEqual(problems, []);
});
