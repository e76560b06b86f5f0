// The speed test page in Chromium against the real netspeed server, what does not hang on frame timing
// (side by side with other files): the phone layout before and after a test, a test the server
// refuses halfway, the content security policy, and each phase's dial scale. The whole test with its
// live dial is in speedtest.test.ts, which runs alone.
import { createServer, request as forwardRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import test, { type ExecutionContext } from 'ava';
import type { Page } from 'playwright-core';
import { assertAccessible } from '../../helpers/accessibility.js';
import { afterAnimation, endlessAnimations, newPage, openPage, saveScreenshot, text } from '../../helpers/browser.js';
import { desktop, phone, serverName, startNetspeed, waitForPhase } from '../helpers/speedtest-page.js';

/** Nothing on the page is wider than the phone's screen. */
async function checkFitsPhone(t: ExecutionContext, page: Page): Promise<void> {
  t.true((await page.evaluate<number>('document.documentElement.scrollWidth')) <= 390, 'no sideways scrolling of the page');
  for (const panel of await page.locator('.panel:visible').all()) {
    const box = await panel.boundingBox();
    t.true(box !== null && box.x >= 0 && box.x + box.width <= 390, `a panel spans ${JSON.stringify(box)}`);
  }
}

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
  await assertAccessible(t, page, 'the page on a phone');

  await page.locator('#start').tap();
  await waitForPhase(page, 'done', 20_000);
  await page.locator('#summary').waitFor();
  await checkFitsPhone(t, page);
  t.regex(await text(page, '#result-download'), /^\d+\.\d\d$/);
  t.deepEqual(problems, []);
  t.log(await saveScreenshot(page, 'speedtest-phone-summary', { fullPage: true }));
  await assertAccessible(t, page, 'the summary on a phone');
});

/** What a front does with one request: answer it itself, or `forward` it (now or later) to the server. */
type FrontHandler = (request: IncomingMessage, response: ServerResponse, forward: () => void) => void;

/** A front for the netspeed server at `target` that hands each request to `handle` first. */
async function frontFor(t: ExecutionContext, target: string, handle: FrontHandler): Promise<string> {
  const upstream = new URL(target);
  const front = createServer((request, response) => {
    handle(request, response, () => {
      const forwarded = forwardRequest(
        { host: upstream.hostname, port: upstream.port, path: request.url, method: request.method, headers: request.headers },
        (answer) => {
          response.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(response);
        },
      );
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
  await assertAccessible(t, page, 'a refused test');
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
  await assertAccessible(t, page, 'the upload phase');
  await waitForPhase(page, 'done', 30_000);
  const frames = (await page.evaluate<DialFrame[]>('window.dialFrames')).filter((frame) => ['ping', 'download', 'upload'].includes(frame.phase));
  t.true(
    frames.some((frame) => frame.phase === 'ping' && frame.top === 1000),
    'the slow pings widened the ping scale',
  );
  t.true(frames.some((frame) => frame.phase === 'download'));
  t.deepEqual(frames.filter((frame) => frame.value > frame.top).slice(0, 3), [], 'a figure past the top tick');
  t.deepEqual(frames.filter((frame) => frame.active.some((step) => step !== frame.phase)).slice(0, 3), [], 'a step lit that is not the phase running');
  t.deepEqual(problems, []);
});
