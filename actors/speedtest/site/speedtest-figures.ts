// What a netspeed front counts for the role's /metrics (src/metrics/): tests by phase, started and
// completed, and the bytes of the tests themselves (a download's body as it is handed to the socket,
// an upload's as it arrives), so a download the client broke off counts what it took, not what it
// announced. Plain numbers on the test path, made into families only when the thread pushes.
import { family, type MetricFamily } from '../../../src/metrics/family.js';

export const speedtestPhases = ['download', 'upload', 'ping'] as const;
export type SpeedtestPhase = (typeof speedtestPhases)[number];

export class SpeedtestFigures {
  private readonly started = new Float64Array(speedtestPhases.length);
  private readonly completed = new Float64Array(speedtestPhases.length);
  private servedBytes = 0;
  private receivedBytes = 0;

  /** A test of `phase` began; `completed` is told when it was answered in full. */
  begin(phase: SpeedtestPhase): void {
    this.started[speedtestPhases.indexOf(phase)]!++;
  }

  /** A test of `phase` was answered to its end (the last download byte handed to the socket). */
  complete(phase: SpeedtestPhase): void {
    this.completed[speedtestPhases.indexOf(phase)]!++;
  }

  served(bytes: number): void {
    this.servedBytes += bytes;
  }

  received(bytes: number): void {
    this.receivedBytes += bytes;
  }

  families(): MetricFamily[] {
    const byPhase = (counts: Float64Array) => speedtestPhases.map((phase, index) => ({ value: counts[index]!, labels: { phase } }));
    return [
      family('outpost_speedtest_tests_started_total', 'Speed test requests that began, by phase (download, upload, ping).', 'counter', byPhase(this.started)),
      family(
        'outpost_speedtest_tests_completed_total',
        'Speed test requests answered to their end, by phase; started minus completed is what clients broke off or was refused.',
        'counter',
        byPhase(this.completed),
      ),
      family('outpost_speedtest_served_bytes_total', "Download bytes handed to the clients' sockets.", 'counter', [{ value: this.servedBytes, labels: {} }]),
      family('outpost_speedtest_received_bytes_total', 'Upload bytes received from clients.', 'counter', [{ value: this.receivedBytes, labels: {} }]),
    ];
  }
}
