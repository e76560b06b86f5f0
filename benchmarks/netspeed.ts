// netspeed: loopback throughput of the download path and of the client's own measurement, each next
// to iperf3 measured in the same run; the plain node:http baseline beside them.
// Targets: our server (fetched by wrk on one connection; curl itself tops out near 15 Gbit/s here) at least iperf3's single stream, and ahead of node:http in
// throughput and in CPU seconds per gigabit; the client's own figure at least 80% of iperf3's.
// The server is also read as iperf3 reads, in rounds beside iperf3: one stream each, the server's
// write size on both sides (iperf3 -l, its writes and its receiver's reads; the HTTP receiver's
// reads). Where system calls are dear, wrk's 8 KiB reads bound its figure below what the server sends.
// The client runs six streams each way; its anchor is iperf3 with six streams (-P 6) in the same direction.
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { ensureTools, median, printTable, projectRoot, startServer, verdict } from './harness.js';
import { figure, ratio, summaryRow } from './summary-table.js';
import { cpuSeconds, residentBytes } from './measure/proc-stat.js';

const run = promisify(execFile);
const downloadBytes = 100_000_000;
/** What the netspeed server hands uWS in one write (writeBytes in actors/speedtest/site/site.ts). */
const serverWriteBytes = 1024 * 1024;
const writeSize = `${serverWriteBytes / 1024 / 1024} MiB`;
/** The client's parallel streams, each way (actors/speedtest/client). */
const clientStreams = 6;

interface IperfRun {
  seconds: number;
  /** -P: parallel streams. */
  streams?: number;
  /** -l: bytes a write, and a read on the receiving side. */
  blockBytes?: number;
  /** -R: the iperf3 server sends, as a download does. */
  reverse?: boolean;
}

interface Throughput {
  gbitPerSecond: number;
  cpuSecondsPerGbit: number;
}

export async function netspeedBenchmark(options: { seconds: number; rounds: number }): Promise<void> {
  await ensureTools(['iperf3', 'curl', 'wrk', 'python3']);
  const iperf = await iperf3({ seconds: options.seconds });
  const ours = await startServer(new URL('../bin/netspeed.js', import.meta.url), ['server', '-H', '127.0.0.1', '-p', '0', '-q']);
  const baseline = await startServer(new URL('./hosts/node-http-download.js', import.meta.url));
  try {
    const ourUrl = `${ours.urls[0]}api/download?size=${downloadBytes}`;
    const rssBefore = residentBytes(ours.child.pid!);
    const oursDown = await downloadThroughput(ourUrl, ours.child.pid!, options.seconds);
    const baselineDown = await downloadThroughput(`${baseline.urls[0]}api/download?size=${downloadBytes}`, baseline.child.pid!, options.seconds);
    // The same two servers read as iperf3 reads, in rounds, each round right after an iperf3 run of the
    // same length with the same write size and one stream; the ratio is taken round by round.
    const readRounds: { iperf: Throughput; ours: Throughput; baseline: Throughput }[] = [];
    for (let round = 0; round < options.rounds; round++) {
      const anchor = await iperf3({ seconds: options.seconds, blockBytes: serverWriteBytes });
      readRounds.push({
        iperf: anchor,
        ours: await receiveThroughput(ourUrl, ours.child.pid!, options.seconds),
        baseline: await receiveThroughput(`${baseline.urls[0]}api/download?size=${downloadBytes}`, baseline.child.pid!, options.seconds),
      });
    }
    const readMedian = (pick: (round: (typeof readRounds)[number]) => Throughput): Throughput => ({
      gbitPerSecond: median(readRounds.map((round) => pick(round).gbitPerSecond)),
      cpuSecondsPerGbit: median(readRounds.map((round) => pick(round).cpuSecondsPerGbit)),
    });
    const rounds = (pick: (round: (typeof readRounds)[number]) => Throughput) => readRounds.map((round) => pick(round).gbitPerSecond.toFixed(2)).join(' ');
    const iperfBeside = readMedian((round) => round.iperf);
    const oursRead = readMedian((round) => round.ours);
    const baselineRead = readMedian((round) => round.baseline);
    const readRatio = (pick: (round: (typeof readRounds)[number]) => Throughput) =>
      median(readRounds.map((round) => pick(round).gbitPerSecond / round.iperf.gbitPerSecond));
    // Each client round right after iperf3 with as many streams, one run each way (-t 1): on a machine
    // others load, the two then see the same moment, and the ratio is taken round by round.
    const clientRuns: { download_bps: number; upload_bps: number; anchorDown: number; anchorUp: number }[] = [];
    for (let round = 0; round < options.rounds; round++) {
      const anchorDown = (await iperf3({ seconds: 1, streams: clientStreams, reverse: true })).gbitPerSecond;
      const anchorUp = (await iperf3({ seconds: 1, streams: clientStreams })).gbitPerSecond;
      const { stdout } = await run(process.execPath, [new URL('../bin/netspeed.js', import.meta.url).pathname, ours.urls[0]!, '--json']);
      clientRuns.push({ ...(JSON.parse(stdout) as { download_bps: number; upload_bps: number }), anchorDown, anchorUp });
    }
    await uploadWithCurl(`${ours.urls[0]}api/upload`);
    const rssGrowth = residentBytes(ours.child.pid!) - rssBefore;
    const clientDown = median(clientRuns.map((entry) => entry.download_bps)) / 1e9;
    const clientUp = median(clientRuns.map((entry) => entry.upload_bps)) / 1e9;
    const anchorDown = median(clientRuns.map((entry) => entry.anchorDown));
    const anchorUp = median(clientRuns.map((entry) => entry.anchorUp));
    const downRatio = median(clientRuns.map((entry) => entry.download_bps / 1e9 / entry.anchorDown));
    const upRatio = median(clientRuns.map((entry) => entry.upload_bps / 1e9 / entry.anchorUp));
    const readSetting = `one stream, ${writeSize} writes and reads`;
    const clientAnchor = `iperf3 -P ${clientStreams} -t 1, each way (-R down), just before each round`;

    printTable(
      `netspeed: loopback, 100 MB downloads fetched by wrk -c1 for ${options.seconds} s, iperf3 -t ${options.seconds} single stream (Node ${process.versions.node})`,
      ['sender', 'Gbit/s', 'sender CPU ms per Gbit', 'ratio to iperf3'],
      [
        ['iperf3 single stream (anchor)', iperf.gbitPerSecond, iperf.cpuSecondsPerGbit * 1000, 1],
        [
          'node:http random buffer (baseline)',
          baselineDown.gbitPerSecond,
          baselineDown.cpuSecondsPerGbit * 1000,
          baselineDown.gbitPerSecond / iperf.gbitPerSecond,
        ],
        ['netspeed server (uWS)', oursDown.gbitPerSecond, oursDown.cpuSecondsPerGbit * 1000, oursDown.gbitPerSecond / iperf.gbitPerSecond],
      ],
    );
    printTable(
      `netspeed: the same downloads read ${writeSize} at a time (benchmarks/measure/http-receive.py), as the server writes, for ${options.seconds} s, each round after iperf3 -l ${serverWriteBytes / 1024 / 1024}M -t ${options.seconds} (${readSetting}); medians of ${options.rounds} rounds`,
      ['sender', 'Gbit/s', 'sender CPU ms per Gbit', "ratio to iperf3 (median of the rounds' ratios)", 'every round, Gbit/s'],
      [
        [
          `iperf3 -l ${serverWriteBytes / 1024 / 1024}M, one stream (anchor)`,
          iperfBeside.gbitPerSecond,
          iperfBeside.cpuSecondsPerGbit * 1000,
          1,
          rounds((round) => round.iperf),
        ],
        [
          'node:http random buffer (baseline)',
          baselineRead.gbitPerSecond,
          baselineRead.cpuSecondsPerGbit * 1000,
          readRatio((round) => round.baseline),
          rounds((round) => round.baseline),
        ],
        ['netspeed server (uWS)', oursRead.gbitPerSecond, oursRead.cpuSecondsPerGbit * 1000, readRatio((round) => round.ours), rounds((round) => round.ours)],
      ],
    );
    printTable(
      `netspeed client on loopback: its own figures (25 MB down, 10 MB up, ${clientStreams} streams), medians of ${options.rounds} rounds, each after ${clientAnchor}`,
      ['measurement', 'Gbit/s', "ratio to iperf3 (median of the rounds' ratios)"],
      [
        [`iperf3 -P ${clientStreams} -R, download (anchor)`, anchorDown, 1],
        ['client download', clientDown, downRatio],
        [`iperf3 -P ${clientStreams}, upload (anchor)`, anchorUp, 1],
        ['client upload', clientUp, upRatio],
      ],
    );
    const gbit = (throughput: Throughput) => `${figure(throughput.gbitPerSecond)} Gbit/s, ${figure(throughput.cpuSecondsPerGbit * 1000)} ms CPU a Gbit`;
    summaryRow({
      benchmark: `netspeed server: 100 MB downloads on loopback read by wrk -c1 (8 KiB reads) for ${options.seconds} s`,
      ours: `${gbit(oursDown)} (node:http ${figure(baselineDown.gbitPerSecond)} Gbit/s)`,
      anchor: `iperf3, one stream (its default 128 KiB writes), -t ${options.seconds}`,
      anchorFigure: gbit(iperf),
      ratio: ratio(oursDown.gbitPerSecond, iperf.gbitPerSecond),
    });
    summaryRow({
      benchmark: `netspeed server: the same downloads read ${writeSize} at a time, as it writes, for ${options.seconds} s (median of ${options.rounds})`,
      ours: `${gbit(oursRead)} (node:http ${figure(baselineRead.gbitPerSecond)} Gbit/s)`,
      anchor: `iperf3 -l ${serverWriteBytes / 1024 / 1024}M (${readSetting}), -t ${options.seconds}, just before each round`,
      anchorFigure: gbit(iperfBeside),
      ratio: readRatio((round) => round.ours).toFixed(2),
    });
    summaryRow({
      benchmark: `netspeed client: its own figures, ${clientStreams} streams, 25 MB down and 10 MB up (median of ${options.rounds})`,
      ours: `download ${figure(clientDown)} Gbit/s, upload ${figure(clientUp)} Gbit/s`,
      anchor: clientAnchor,
      anchorFigure: `download ${figure(anchorDown)} Gbit/s, upload ${figure(anchorUp)} Gbit/s`,
      ratio: `${downRatio.toFixed(2)} / ${upRatio.toFixed(2)}`,
    });
    console.log(`server memory: RSS ${(rssGrowth / 1024 / 1024).toFixed(1)} MiB different after the 100 MB downloads and uploads than before`);
    console.log(
      `server read as iperf3 reads >= iperf3 (${readSetting}): ${verdict(readRatio((round) => round.ours) >= 1)}; ahead of node:http read the same way: ${verdict(oursRead.gbitPerSecond > baselineRead.gbitPerSecond)}`,
    );
    console.log(
      `server >= iperf3 (wrk): ${verdict(oursDown.gbitPerSecond >= iperf.gbitPerSecond)}; beats node:http in throughput: ${verdict(oursDown.gbitPerSecond > baselineDown.gbitPerSecond)} and CPU per Gbit: ${verdict(oursDown.cpuSecondsPerGbit < baselineDown.cpuSecondsPerGbit)}; client download >= 80% of iperf3 -P ${clientStreams}: ${verdict(downRatio >= 0.8)}`,
    );
  } finally {
    await ours.stop();
    await baseline.stop();
  }
}

/** wrk on one connection, the way iperf3's single stream runs: body bytes a second, and the sender's CPU for them. */
async function downloadThroughput(url: string, serverPid: number, seconds: number): Promise<Throughput> {
  await run('wrk', ['-t1', '-c1', '-d1s', url]);
  const cpuBefore = cpuSeconds(serverPid);
  const { stdout } = await run('wrk', ['-t1', '-c1', `-d${seconds}s`, url]);
  const cpu = cpuSeconds(serverPid) - cpuBefore;
  const match = /Transfer\/sec:\s+([\d.]+)(KB|MB|GB)/.exec(stdout);
  if (match === null) throw new Error(`wrk printed no transfer rate:\n${stdout}`);
  const bytesPerSecond = Number(match[1]) * { KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3 }[match[2] as 'KB' | 'MB' | 'GB'];
  const gbitPerSecond = (bytesPerSecond * 8) / 1e9;
  return { gbitPerSecond, cpuSecondsPerGbit: cpu / (gbitPerSecond * seconds) };
}

/** The download read by http-receive.py (reads of the server's write size), one connection: body bytes a second, and the sender's CPU for them. */
async function receiveThroughput(url: string, serverPid: number, seconds: number): Promise<Throughput> {
  const receiver = new URL('benchmarks/measure/http-receive.py', projectRoot).pathname;
  await run('python3', [receiver, url, '1', String(serverWriteBytes)]);
  const cpuBefore = cpuSeconds(serverPid);
  const { stdout } = await run('python3', [receiver, url, String(seconds), String(serverWriteBytes)]);
  const cpu = cpuSeconds(serverPid) - cpuBefore;
  const { bytes, seconds: measured } = JSON.parse(stdout) as { bytes: number; seconds: number };
  const gbitPerSecond = (bytes * 8) / measured / 1e9;
  return { gbitPerSecond, cpuSecondsPerGbit: cpu / (gbitPerSecond * measured) };
}

async function uploadWithCurl(url: string): Promise<void> {
  const payload = spawn('head', ['-c', String(downloadBytes), '/dev/urandom']);
  const curl = spawn('curl', ['-s', '-o', '/dev/null', '-H', `Content-Length: ${downloadBytes}`, '--data-binary', '@-', url], {
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  payload.stdout.pipe(curl.stdin);
  await new Promise((resolve) => curl.on('exit', resolve));
}

/** One iperf3 run on loopback: bits a second received, and the sending client's CPU per gigabit (-R: the receiving client's). */
async function iperf3({ seconds, streams = 1, blockBytes, reverse = false }: IperfRun): Promise<Throughput> {
  const port = 5299;
  const server = spawn('iperf3', ['-s', '-1', '-B', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
  await new Promise((resolve) => setTimeout(resolve, 300));
  try {
    const args = ['-c', '127.0.0.1', '-p', String(port), '-t', String(seconds), '-P', String(streams), '-J'];
    if (blockBytes !== undefined) args.push('-l', String(blockBytes));
    if (reverse) args.push('-R');
    const { stdout } = await run('iperf3', args, { maxBuffer: 1 << 22 });
    const report = JSON.parse(stdout) as {
      end: { sum_received: { bits_per_second: number; seconds: number }; cpu_utilization_percent: { host_total: number } };
    };
    const gbitPerSecond = report.end.sum_received.bits_per_second / 1e9;
    const cpuSecondsPerGbit =
      ((report.end.cpu_utilization_percent.host_total / 100) * report.end.sum_received.seconds) / (gbitPerSecond * report.end.sum_received.seconds);
    return { gbitPerSecond, cpuSecondsPerGbit };
  } finally {
    server.kill('SIGKILL');
  }
}
