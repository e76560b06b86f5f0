// `netspeed [client] SERVER`: checks that SERVER is a netspeed server, then ping, download, upload.
import type { SpeedtestInfo } from '../site/protocol.js';
import { warmUpMs } from './goodput.js';
import { createAgent, exchange } from './http.js';
import { deadlineOf, measureDownload, measurePing, measureUpload, pingWhileLoaded, type Target } from './phases.js';
import { ansiPalette, compactLine, jsonReport, plainPalette, progressBar, summaryLines, type SpeedtestOutcome } from './report.js';
import { apiUrl, serverAddress } from './server-url.js';
import { saveResult } from './save.js';

export type OutputMode = 'normal' | 'compact' | 'json';

/** The spec's procedure: 10 pings, 25 MB down and 10 MB up over 6 streams (MB = 10^6 bytes). */
export const clientPlan = { pings: 10, downloadBytes: 25_000_000, uploadBytes: 10_000_000, streams: 6, loadedPingEveryMs: 100 };

/**
 * The download's figure shown while it runs counts every byte since the requests went out, and shows
 * only once this much time has passed: over a shorter span the bytes a shaper lets through in one
 * burst, or a read that brings what the kernel held, weigh enough to read above the link.
 */
export const interimWindowMs = 1000;

/** How long connecting, the first byte of an answer or the next byte of a transfer may take. */
export const defaultTimeoutSeconds = 10;

export interface ClientOptions {
  mode: OutputMode;
  timeoutSeconds: number;
  /** Keep the result on the server (--save). */
  save?: boolean;
}

export async function runClient(input: string, options: ClientOptions, out: NodeJS.WriteStream = process.stdout): Promise<void> {
  const { url, shown } = serverAddress(input);
  const target: Target = { url, shown, timeoutMs: options.timeoutSeconds * 1000 };
  const info = await serverInfo(target);
  // Progress frames redraw one line with \r: on a terminal only. Into a file or a pipe, plain lines.
  const terminal = out.isTTY === true;
  const normal = options.mode === 'normal';
  const frames = normal && terminal;
  const palette = frames && process.env.NO_COLOR === undefined ? ansiPalette : plainPalette;
  // Without frames the header is followed by the summary alone, which opens with a blank line.
  if (normal)
    out.write(
      `${palette.bold('netspeed')} ${palette.dim('→')} ${palette.accent(shown)} ${palette.dim(`(${info.name}, ${info.program} ${info.version})`)}\n${frames ? '\n' : ''}`,
    );

  if (frames) out.write('  Ping       measuring…\r');
  const ping = await measurePing(target, clientPlan.pings);
  // The shortest round trip is the path's; the others add the moment's delays on the two machines.
  const warmUp = warmUpMs(Math.min(...ping.rtts));

  const loadedDown = pingWhileLoaded(target, clientPlan.loadedPingEveryMs);
  const downloadStartedAt = performance.now();
  let lastDraw = 0;
  const downloadPlan = { bytes: clientPlan.downloadBytes, streams: clientPlan.streams, warmUpMs: warmUp, raw: info.program === 'netspeed' };
  const download = await measureDownload(target, downloadPlan, (bytes, total) => {
    if (!frames) return;
    const now = performance.now();
    if (now - lastDraw < 100) return;
    lastDraw = now;
    const elapsedMs = now - downloadStartedAt;
    out.write(`\r  Download   ${progressBar(bytes / total, elapsedMs < interimWindowMs ? undefined : (bytes * 8) / (elapsedMs / 1000))}`);
  }).finally(() => loadedDown.stop());
  const loadedDownloadRtts = await loadedDown.stop();
  if (frames) out.write(`\r  Download   ${progressBar(1, download.bitsPerSecond)}\n  Upload     measuring…`);

  const loadedUp = pingWhileLoaded(target, clientPlan.loadedPingEveryMs);
  const upload = await measureUpload(target, { bytes: clientPlan.uploadBytes, streams: clientPlan.streams, warmUpMs: warmUp }).finally(() => loadedUp.stop());
  const loadedUploadRtts = await loadedUp.stop();

  const outcome: SpeedtestOutcome = {
    server: shown,
    serverName: info.name,
    pingRtts: ping.rtts,
    pingsSent: ping.sent,
    pingsLost: ping.lost,
    download,
    upload,
    loadedDownloadRtts,
    loadedUploadRtts,
  };
  // Saved before anything is printed, so that JSON can carry the page's address; printed either way.
  let saved: string | undefined;
  let saveFailure: Error | undefined;
  if (options.save === true) {
    try {
      if (!info.results) throw new Error(`save: ${shown} keeps no results (netspeed server keeps them with --results FILE)`);
      saved = await saveResult(target, jsonReport(outcome));
    } catch (error) {
      saveFailure = error instanceof Error ? error : new Error(String(error));
    }
  }
  if (options.mode === 'json') out.write(`${JSON.stringify({ ...jsonReport(outcome), ...(saved === undefined ? {} : { saved }) }, null, 2)}\n`);
  else if (options.mode === 'compact') out.write(`${compactLine(outcome)}\n${saved === undefined ? '' : `saved ${saved}\n`}`);
  else {
    const lines = [...summaryLines(outcome, palette), ...(saved === undefined ? [] : ['', `  Saved      ${palette.accent(saved)}`])];
    out.write(`${frames ? `\r${' '.repeat(40)}\r` : ''}${lines.join('\n')}\n`);
  }
  if (saveFailure !== undefined) throw saveFailure;
}

/**
 * The server's /api/info. Any server with the specification's four endpoints is measured: its info
 * names the program (`server`) and its version; netspeed's own extras are used only where it says it
 * is netspeed, or where an answer carries them (an upload's `landed`).
 */
async function serverInfo(target: Target): Promise<ServerInfo> {
  const agent = createAgent(target.url, 1);
  try {
    const response = await exchange(apiUrl(target.url, '/api/info'), agent, deadlineOf(target, 'server check'));
    const body = (await response.body()) ?? Buffer.alloc(0);
    if (response.status !== 200) throw new Error(`${target.shown} answered ${response.status} at /api/info: not a netspeed server?`);
    const info = parsedJson(body);
    if (!isServerInfo(info)) throw new Error(`${target.shown} is not a netspeed server (its /api/info does not name a speed test program and its version)`);
    return {
      program: info.server,
      version: info.version,
      name: typeof info.name === 'string' && info.name !== '' ? info.name : info.server,
      results: info.results === true,
    };
  } finally {
    agent.destroy();
  }
}

/** What the client needs of /api/info. */
interface ServerInfo {
  /** The program the server names itself (`netspeed` for this one). */
  program: string;
  version: string;
  name: string;
  /** The server keeps results (netspeed's `results`). */
  results: boolean;
}

function parsedJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

function isServerInfo(value: unknown): value is Pick<SpeedtestInfo, 'server' | 'version'> & Partial<SpeedtestInfo> {
  if (typeof value !== 'object' || value === null) return false;
  const { server, version } = value as Record<string, unknown>;
  return typeof server === 'string' && server !== '' && typeof version === 'string';
}
