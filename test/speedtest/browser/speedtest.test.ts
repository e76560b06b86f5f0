// The speed test page in Chromium against the real netspeed server: a whole test from the Start button
// (phases in order, each as long as the server says, the dial live and moving during download, plausible
// figures in the summary). It reads the dial in animation frames and times the phases, which a starved
// Chromium does not draw on time: this file runs alone (test/serial-files.txt); the page's other tests
// are in speedtest-page.test.ts.
import test from 'ava';
import { openPage, saveScreenshot, text } from '../../helpers/browser.js';
import { desktop, phaseSeconds, serverName, startNetspeed, waitForPhase } from '../helpers/speedtest-page.js';

interface PhaseChange {
  phase: string;
  at: number;
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
