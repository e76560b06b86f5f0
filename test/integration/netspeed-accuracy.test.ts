// Accuracy on a shaped link: the client's download and upload against iperf3 measured on the same
// link in the same test, and never above the shaper's rate.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import test from 'ava';
import { makeShapedLink } from '../helpers/network-namespaces.js';
import { startNetspeedServer } from '../helpers/netspeed.js';
import { projectPath, startProcess } from '../helpers/process.js';

const run = promisify(execFile);

interface IperfReport {
  end: { sum_received: { bits_per_second: number } };
}

for (const mbit of [20, 100]) {
  test.serial(`at ${mbit} Mbit/s the client is within 5% of iperf3 both ways and never above the link`, async (t) => {
    const link = await makeShapedLink(t);
    await link.shape(mbit);
    const server = await startNetspeedServer(t, ['-H', link.server.address, '-p', '8080', '-q'], link.inNamespace(link.server.namespace));
    startProcess(t, 'ip', ['netns', 'exec', link.server.namespace, 'iperf3', '-s', '-B', link.server.address, '-p', '5201']);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const iperf = async (reverse: boolean) => {
      const args = ['netns', 'exec', link.client.namespace, 'iperf3', '-c', link.server.address, '-p', '5201', '-t', '5', '-O', '1', '-J', ...(reverse ? ['-R'] : [])];
      const { stdout } = await run('ip', args, { maxBuffer: 1 << 22 });
      return (JSON.parse(stdout) as IperfReport).end.sum_received.bits_per_second;
    };
    const measure = async () => {
      const { stdout } = await run('ip', ['netns', 'exec', link.client.namespace, process.execPath, projectPath('dist/bin/netspeed.js'), `${link.server.address}:8080`, '--json'], { timeout: 120_000 });
      return JSON.parse(stdout) as { download_bps: number; upload_bps: number };
    };
    const within = (ours: number, truth: number) => Math.abs(ours - truth) / truth <= 0.05;
    let iperfDown = await iperf(true);
    let iperfUp = await iperf(false);
    let report = await measure();
    // Both measured again when they disagree: a stream stalled in loss recovery at the end of a
    // transfer lowers a figure on a loaded machine, iperf3's as well as ours (seen in CI: iperf3
    // down 87.5 against 95.6 for two netspeed runs). Both runs are logged.
    if (!within(report.download_bps, iperfDown) || !within(report.upload_bps, iperfUp)) {
      t.log(`first run: iperf3 down ${(iperfDown / 1e6).toFixed(2)} up ${(iperfUp / 1e6).toFixed(2)}; netspeed down ${(report.download_bps / 1e6).toFixed(2)} up ${(report.upload_bps / 1e6).toFixed(2)}; running both again`);
      iperfDown = await iperf(true);
      iperfUp = await iperf(false);
      report = await measure();
    }
    const rate = mbit * 1e6;
    t.log(`tc ${mbit} Mbit/s: iperf3 down ${(iperfDown / 1e6).toFixed(2)} up ${(iperfUp / 1e6).toFixed(2)}; netspeed down ${(report.download_bps / 1e6).toFixed(2)} up ${(report.upload_bps / 1e6).toFixed(2)}`);
    t.true(Math.abs(report.download_bps - iperfDown) / iperfDown <= 0.05, 'download within 5% of iperf3');
    t.true(Math.abs(report.upload_bps - iperfUp) / iperfUp <= 0.05, 'upload within 5% of iperf3');
    t.true(report.download_bps <= rate, 'download never above the shaper');
    t.true(report.upload_bps <= rate, 'upload never above the shaper');
    t.is(server.url, `http://${link.server.address}:8080/`);
  });
}
