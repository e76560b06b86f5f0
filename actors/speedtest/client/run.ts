// `netspeed [client] SERVER`: checks that SERVER is a netspeed server, then ping, download, upload.
import type { SpeedtestInfo } from '../site/protocol.js';
import { warmUpMs } from './goodput.js';
import { createAgent, exchange } from './http.js';
import { deadlineOf, measureDownload, measurePing, measureUpload, pingWhileLoaded, type Target } from './phases.js';
import { ansiPalette, compactLine, jsonReport, plainPalette, progressBar, summaryLines, type SpeedtestOutcome } from './report.js';
import { apiUrl, serverAddress } from './server-url.js';

export type OutputMode = 'normal' | 'compact' | 'json';

/** The spec's procedure: 10 pings, 25 MB down and 10 MB up over 6 streams (MB = 10^6 bytes). */
export const clientPlan = { pings: 10, downloadBytes: 25_000_000, uploadBytes: 10_000_000, streams: 6, loadedPingEveryMs: 100 };

/** How long connecting, the first byte of an answer or the next byte of a transfer may take. */
export const defaultTimeoutSeconds = 10;

export interface ClientOptions {
  mode: OutputMode;
  timeoutSeconds: number;
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
      `${palette.bold('netspeed')} ${palette.dim('→')} ${palette.accent(shown)} ${palette.dim(`(${info.name}, netspeed ${info.version})`)}\n${frames ? '\n' : ''}`,
    );

  if (frames) out.write('  Ping       measuring…\r');
  const ping = await measurePing(target, clientPlan.pings);
  // The shortest round trip is the path's; the others add the moment's delays on the two machines.
  const warmUp = warmUpMs(Math.min(...ping.rtts));

  const loadedDown = pingWhileLoaded(target, clientPlan.loadedPingEveryMs);
  const downloadStartedAt = performance.now();
  let lastDraw = 0;
  const download = await measureDownload(target, { bytes: clientPlan.downloadBytes, streams: clientPlan.streams, warmUpMs: warmUp }, (bytes, total) => {
    if (!frames) return;
    const now = performance.now();
    if (now - lastDraw < 100) return;
    lastDraw = now;
    const rate = (bytes * 8) / ((now - downloadStartedAt) / 1000);
    out.write(`\r  Download   ${progressBar(bytes / total, rate)}`);
  }).finally(() => loadedDown.stop());
  const loadedDownloadRtts = await loadedDown.stop();
  if (frames) out.write(`\r  Download   ${progressBar(1, download.bitsPerSecond)}\n  Upload     measuring…`);

  const loadedUp = pingWhileLoaded(target, clientPlan.loadedPingEveryMs);
  const upload = await measureUpload(target, { bytes: clientPlan.uploadBytes, streams: clientPlan.streams, warmUpMs: warmUp }).finally(() => loadedUp.stop());
  const loadedUploadRtts = await loadedUp.stop();

  const outcome: SpeedtestOutcome = { server: shown, serverName: info.name, pingRtts: ping.rtts, download, upload, loadedDownloadRtts, loadedUploadRtts };
  if (options.mode === 'json') out.write(`${JSON.stringify(jsonReport(outcome), null, 2)}\n`);
  else if (options.mode === 'compact') out.write(`${compactLine(outcome)}\n`);
  else out.write(`${frames ? `\r${' '.repeat(40)}\r` : ''}${summaryLines(outcome, palette).join('\n')}\n`);
}

async function serverInfo(target: Target): Promise<SpeedtestInfo> {
  const agent = createAgent(target.url, 1);
  try {
    const response = await exchange(apiUrl(target.url, '/api/info'), agent, deadlineOf(target, 'server check'));
    const body = (await response.body()) ?? Buffer.alloc(0);
    if (response.status !== 200) throw new Error(`${target.shown} answered ${response.status} at /api/info: not a netspeed server?`);
    const info = parsedJson(body);
    if (!isSpeedtestInfo(info)) throw new Error(`${target.shown} is not a netspeed server (its /api/info does not say so)`);
    return info;
  } finally {
    agent.destroy();
  }
}

function parsedJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

function isSpeedtestInfo(value: unknown): value is SpeedtestInfo {
  return typeof value === 'object' && value !== null && (value as Partial<SpeedtestInfo>).server === 'netspeed';
}
