// The speed test page: names the server, and on Start runs ping, download and upload with the dial
// following each live figure, then shows the results. `body[data-phase]` says where the page is; the
// stylesheet keys its colours and what is visible on it.
import type { SpeedtestInfo } from '../browser.js';
import { fetchInfo } from './api.js';
import { byId } from '../../../ui/common/dom.js';
import { messageOf } from '../../../ui/common/errors.js';
import { formatMbps, formatMs, megabits } from './format.js';
import { Gauge, type GaugeUnit } from './gauge.js';
import { LiveGraph } from './live-graph.js';
import { PhaseSteps } from './phase-steps.js';
import { runSpeedTest, type Phase } from './speed-test.js';
import { resultInput, SummaryPanel } from './summary-panel.js';
import { SavedResults } from './results.js';

type PageState = 'loading' | 'idle' | Phase | 'done' | 'failed';

const phaseDisplay: Record<Phase, { name: string; unit: GaugeUnit }> = {
  ping: { name: 'Ping', unit: 'ms' },
  download: { name: 'Download', unit: 'Mbps' },
  upload: { name: 'Upload', unit: 'Mbps' },
};

const serverName = byId('server-name');
const serverAddress = byId('server-address');
const startButton = byId<HTMLButtonElement>('start');
const runAgainButton = byId<HTMLButtonElement>('run-again');
const problem = byId('problem');
const gauge = new Gauge();
const graph = new LiveGraph();
const steps = new PhaseSteps();
const summary = new SummaryPanel();
const savedResults = new SavedResults();
let info: SpeedtestInfo | undefined;

function enter(state: PageState): void {
  document.body.dataset.phase = state;
}

function showServer(server: SpeedtestInfo): void {
  serverName.textContent = server.name;
  document.title = `${server.name} · netspeed`;
}

function showProblem(message: string | undefined): void {
  problem.hidden = message === undefined;
  problem.textContent = message ?? '';
}

async function loadInfo(): Promise<SpeedtestInfo> {
  info ??= await fetchInfo();
  showServer(info);
  return info;
}

async function run(): Promise<void> {
  startButton.disabled = true;
  runAgainButton.disabled = true;
  showProblem(undefined);
  summary.hide();
  steps.reset();
  try {
    const server = await loadInfo();
    const result = await runSpeedTest(server, {
      phaseStarted(phase, phaseMs) {
        enter(phase);
        gauge.begin(phaseDisplay[phase].name, phaseDisplay[phase].unit);
        graph.begin(phaseMs);
        steps.start(phase, phaseMs);
      },
      live(phase, value) {
        const shown = phase === 'ping' ? value : megabits(value);
        gauge.set(shown);
        graph.add(shown);
      },
      phaseFinished(phase, value) {
        steps.finish(phase, phase === 'ping' ? formatMs(value) : formatMbps(value), phaseDisplay[phase].unit);
      },
    });
    summary.show(result, server, new Date());
    savedResults.offer(server, resultInput(result));
    gauge.rest('Test complete');
    enter('done');
  } catch (error) {
    steps.fail();
    gauge.rest('Test failed');
    showProblem(`The test stopped: ${messageOf(error)}`);
    startButton.textContent = 'Retry';
    enter('failed');
  } finally {
    startButton.disabled = false;
    runAgainButton.disabled = false;
  }
}

serverAddress.textContent = location.host;
startButton.addEventListener('click', () => void run());
runAgainButton.addEventListener('click', () => void run());
// A test started before the server's answer came in has moved the page on already.
const readyForStart = () => {
  if (document.body.dataset.phase === 'loading') enter('idle');
};
loadInfo().then(
  (server) => {
    readyForStart();
    savedResults.load(server).catch((error: unknown) => showProblem(`Cannot list the saved results: ${messageOf(error)}`));
  },
  (error: unknown) => {
    // Start asks again, so a server that was still starting up needs no reload.
    showProblem(`Cannot reach the server: ${messageOf(error)}`);
    readyForStart();
  },
);
