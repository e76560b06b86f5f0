// netspeed: loopback throughput of the download path and of the client's own measurement, each next
// to iperf3's single stream measured in the same run; the plain node:http baseline beside them.
// Targets: our server (fetched by wrk on one connection; curl itself tops out near 15 Gbit/s here) at least iperf3's single stream, and ahead of node:http in
// throughput and in CPU seconds per gigabit; the client's own figure at least 80% of iperf3's.
// The server is also read as iperf3's receiver reads (128 KiB a read): where system calls are dear,
// wrk's 8 KiB reads bound its figure below what the server sends.
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { ensureTools, median, printTable, projectRoot, startServer, verdict } from './harness.js';
import { figure, ratio, summaryRow } from './summary-table.js';
import { cpuSeconds, residentBytes } from './measure/proc-stat.js';

const run = promisify(execFile);
const downloadBytes = 100_000_000;

interface Throughput {
  gbitPerSecond: number;
  cpuSecondsPerGbit: number;
}

export async function netspeedBenchmark(options: { seconds: number; rounds: number }): Promise<void> {
  await ensureTools(['iperf3', 'curl', 'wrk', 'python3']);
  const iperf = await iperfSingleStream(options.seconds);
  const ours = await startServer(new URL('../bin/netspeed.js', import.meta.url), ['server', '-H', '127.0.0.1', '-p', '0', '-q']);
  const baseline = await startServer(new URL('./hosts/node-http-download.js', import.meta.url));
  try {
    const ourUrl = `${ours.urls[0]}api/download?size=${downloadBytes}`;
    const rssBefore = residentBytes(ours.child.pid!);
    const oursDown = await downloadThroughput(ourUrl, ours.child.pid!, options.seconds);
    const baselineDown = await downloadThroughput(`${baseline.urls[0]}api/download?size=${downloadBytes}`, baseline.child.pid!, options.seconds);
    // The same two servers read as iperf3's receiver reads, right after an iperf3 run of the same length.
    const iperfBeside = await iperfSingleStream(options.seconds);
    const oursRead = await receiveThroughput(ourUrl, ours.child.pid!, options.seconds);
    const baselineRead = await receiveThroughput(`${baseline.urls[0]}api/download?size=${downloadBytes}`, baseline.child.pid!, options.seconds);
    // Each client round right after a 1 s iperf3 run: on a machine others load, the two then see the
    // same moment, and the ratio is taken round by round.
    const clientRuns: { download_bps: number; upload_bps: number; anchor: number }[] = [];
    for (let round = 0; round < options.rounds; round++) {
      const anchor = (await iperfSingleStream(1)).gbitPerSecond;
      const { stdout } = await run(process.execPath, [new URL('../bin/netspeed.js', import.meta.url).pathname, ours.urls[0]!, '--json']);
      clientRuns.push({ ...(JSON.parse(stdout) as { download_bps: number; upload_bps: number }), anchor });
    }
    await uploadWithCurl(`${ours.urls[0]}api/upload`);
    const rssGrowth = residentBytes(ours.child.pid!) - rssBefore;
    const clientDown = median(clientRuns.map((entry) => entry.download_bps)) / 1e9;
    const clientUp = median(clientRuns.map((entry) => entry.upload_bps)) / 1e9;
    const roundAnchor = median(clientRuns.map((entry) => entry.anchor));
    const downRatio = median(clientRuns.map((entry) => entry.download_bps / 1e9 / entry.anchor));
    const upRatio = median(clientRuns.map((entry) => entry.upload_bps / 1e9 / entry.anchor));

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
      `netspeed: the same downloads read 128 KiB at a time (benchmarks/measure/http-receive.py), as iperf3's receiver reads, for ${options.seconds} s, after iperf3 -t ${options.seconds} again`,
      ['sender', 'Gbit/s', 'sender CPU ms per Gbit', 'ratio to iperf3'],
      [
        ['iperf3 single stream (anchor)', iperfBeside.gbitPerSecond, iperfBeside.cpuSecondsPerGbit * 1000, 1],
        [
          'node:http random buffer (baseline)',
          baselineRead.gbitPerSecond,
          baselineRead.cpuSecondsPerGbit * 1000,
          baselineRead.gbitPerSecond / iperfBeside.gbitPerSecond,
        ],
        ['netspeed server (uWS)', oursRead.gbitPerSecond, oursRead.cpuSecondsPerGbit * 1000, oursRead.gbitPerSecond / iperfBeside.gbitPerSecond],
      ],
    );
    printTable(
      `netspeed client on loopback: its own figures (25 MB down, 10 MB up, 6 streams), medians of ${options.rounds} rounds, each after iperf3 -t 1`,
      ['measurement', 'Gbit/s', "ratio to iperf3 (median of the rounds' ratios)"],
      [
        ['iperf3 single stream (anchor)', roundAnchor, 1],
        ['client download', clientDown, downRatio],
        ['client upload', clientUp, upRatio],
      ],
    );
    const gbit = (throughput: Throughput) => `${figure(throughput.gbitPerSecond)} Gbit/s, ${figure(throughput.cpuSecondsPerGbit * 1000)} ms CPU a Gbit`;
    summaryRow({
      benchmark: `netspeed server: 100 MB downloads on loopback read by wrk -c1 (8 KiB reads) for ${options.seconds} s`,
      ours: `${gbit(oursDown)} (node:http ${figure(baselineDown.gbitPerSecond)} Gbit/s)`,
      anchor: `iperf3, one stream, -t ${options.seconds}`,
      anchorFigure: gbit(iperf),
      ratio: ratio(oursDown.gbitPerSecond, iperf.gbitPerSecond),
    });
    summaryRow({
      benchmark: `netspeed server: the same downloads read 128 KiB at a time, as iperf3's receiver reads, for ${options.seconds} s`,
      ours: `${gbit(oursRead)} (node:http ${figure(baselineRead.gbitPerSecond)} Gbit/s)`,
      anchor: `iperf3, one stream, -t ${options.seconds}, run just before`,
      anchorFigure: gbit(iperfBeside),
      ratio: ratio(oursRead.gbitPerSecond, iperfBeside.gbitPerSecond),
    });
    summaryRow({
      benchmark: `netspeed client: its own figures, 6 streams, 25 MB down and 10 MB up (median of ${options.rounds})`,
      ours: `download ${figure(clientDown)} Gbit/s, upload ${figure(clientUp)} Gbit/s`,
      anchor: 'iperf3, one stream, -t 1, just before each round',
      anchorFigure: `${figure(roundAnchor)} Gbit/s`,
      ratio: `${downRatio.toFixed(2)} / ${upRatio.toFixed(2)}`,
    });
    console.log(`server memory: RSS ${(rssGrowth / 1024 / 1024).toFixed(1)} MiB different after the 100 MB downloads and uploads than before`);
    console.log(
      `server read as iperf3 reads >= iperf3: ${verdict(oursRead.gbitPerSecond >= iperfBeside.gbitPerSecond)}; ahead of node:http read the same way: ${verdict(oursRead.gbitPerSecond > baselineRead.gbitPerSecond)}`,
    );
    console.log(
      `server >= iperf3 (wrk): ${verdict(oursDown.gbitPerSecond >= iperf.gbitPerSecond)}; beats node:http in throughput: ${verdict(oursDown.gbitPerSecond > baselineDown.gbitPerSecond)} and CPU per Gbit: ${verdict(oursDown.cpuSecondsPerGbit < baselineDown.cpuSecondsPerGbit)}; client >= 80% of iperf3: ${verdict(downRatio >= 0.8)}`,
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

/** The download read by http-receive.py (128 KiB reads), one connection: body bytes a second, and the sender's CPU for them. */
async function receiveThroughput(url: string, serverPid: number, seconds: number): Promise<Throughput> {
  const receiver = new URL('benchmarks/measure/http-receive.py', projectRoot).pathname;
  await run('python3', [receiver, url, '1']);
  const cpuBefore = cpuSeconds(serverPid);
  const { stdout } = await run('python3', [receiver, url, String(seconds)]);
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

async function iperfSingleStream(seconds: number): Promise<Throughput> {
  const port = 5299;
  const server = spawn('iperf3', ['-s', '-1', '-B', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
  await new Promise((resolve) => setTimeout(resolve, 300));
  try {
    const { stdout } = await run('iperf3', ['-c', '127.0.0.1', '-p', String(port), '-t', String(seconds), '-J'], { maxBuffer: 1 << 22 });
    const report = JSON.parse(stdout) as {
      end: { sum_received: { bits_per_second: number; seconds: number }; cpu_utilization_percent: { host_total: number } };
    };
    const gbitPerSecond = report.end.sum_received.bits_per_second / 1e9;
    // The sender is the client here: its CPU share over the run, per gigabit sent.
    const cpuSecondsPerGbit =
      ((report.end.cpu_utilization_percent.host_total / 100) * report.end.sum_received.seconds) / (gbitPerSecond * report.end.sum_received.seconds);
    return { gbitPerSecond, cpuSecondsPerGbit };
  } finally {
    server.kill('SIGKILL');
  }
}
