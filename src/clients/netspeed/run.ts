// `netspeed [client] SERVER`: checks that SERVER is a netspeed server, then ping, download, upload.
import type { SpeedtestInfo } from '../../../actors/http-front/sites/speedtest/protocol.js';
import { createAgent, getJson } from './http.js';
import { measureDownload, measurePing, measureUpload, pingWhileLoaded } from './phases.js';
import { ansiPalette, compactLine, jsonReport, plainPalette, progressBar, summaryLines, type SpeedtestOutcome } from './report.js';
import { apiUrl, serverUrl } from './server-url.js';

export type OutputMode = 'normal' | 'compact' | 'json';

/** The spec's procedure: 10 pings, 25 MB down and 10 MB up over 6 streams (MB = 10^6 bytes). */
export const clientPlan = { pings: 10, downloadBytes: 25_000_000, uploadBytes: 10_000_000, streams: 6, loadedPingEveryMs: 100 };

export async function runClient(input: string, mode: OutputMode, out: NodeJS.WriteStream = process.stdout): Promise<void> {
  const server = serverUrl(input);
  const info = await serverInfo(server);
  const interactive = mode === 'normal';
  const palette = interactive && out.isTTY === true && process.env.NO_COLOR === undefined ? ansiPalette : plainPalette;
  if (interactive) out.write(`${palette.bold('netspeed')} ${palette.dim('→')} ${palette.accent(server.href)} ${palette.dim(`(${info.name}, netspeed ${info.version})`)}\n\n`);

  if (interactive) out.write('  Ping       measuring…\r');
  const ping = await measurePing(server, clientPlan.pings);

  const loadedDown = pingWhileLoaded(server, clientPlan.loadedPingEveryMs);
  const downloadStartedAt = performance.now();
  let lastDraw = 0;
  const download = await measureDownload(server, clientPlan.downloadBytes, clientPlan.streams, (bytes, total) => {
    const now = performance.now();
    if (!interactive || now - lastDraw < 100) return;
    lastDraw = now;
    const rate = (bytes * 8) / ((now - downloadStartedAt) / 1000);
    out.write(`\r  Download   ${progressBar(bytes / total, rate)}`);
  }).finally(() => loadedDown.stop());
  const loadedDownloadRtts = await loadedDown.stop();
  if (interactive) out.write(`\r  Download   ${progressBar(1, download.bitsPerSecond)}\n  Upload     measuring…`);

  const loadedUp = pingWhileLoaded(server, clientPlan.loadedPingEveryMs);
  const upload = await measureUpload(server, clientPlan.uploadBytes, clientPlan.streams).finally(() => loadedUp.stop());
  const loadedUploadRtts = await loadedUp.stop();

  const outcome: SpeedtestOutcome = { server: server.href, serverName: info.name, pingRtts: ping.rtts, download, upload, loadedDownloadRtts, loadedUploadRtts };
  if (mode === 'json') out.write(`${JSON.stringify(jsonReport(outcome), null, 2)}\n`);
  else if (mode === 'compact') out.write(`${compactLine(outcome)}\n`);
  else out.write(`\r${' '.repeat(40)}\r${summaryLines(outcome, palette).join('\n')}\n`);
}

async function serverInfo(server: URL): Promise<SpeedtestInfo> {
  const agent = createAgent(server, 1);
  try {
    const { status, value } = await getJson<Partial<SpeedtestInfo>>(apiUrl(server, '/api/info'), agent);
    if (status !== 200 || value.server !== 'netspeed') throw new Error('no netspeed info');
    return value as SpeedtestInfo;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ECONNREFUSED') throw new Error(`cannot reach ${server.href}: connection refused (is netspeed server running there?)`);
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') throw new Error(`cannot reach ${server.href}: no such host`);
    if (code === 'ETIMEDOUT' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH') throw new Error(`cannot reach ${server.href}: ${code}`);
    throw new Error(`${server.href} is not a netspeed server (its /api/info does not say so)`);
  } finally {
    agent.destroy();
  }
}
