// What the diode sender counts for the send role's /metrics (src/metrics/): each attempt to send a
// batch across the diode by outcome, the batches given up after the retry limit, and those dropped
// from a backlog the diode did not keep up with. Made into families only when the thread pushes.
import { family, type MetricFamily } from '../../../src/metrics/family.js';

export class SenderFigures {
  private attemptsOk = 0;
  private attemptsFailed = 0;
  private givenUp = 0;
  private droppedWaiting = 0;

  attempted(ok: boolean): void {
    if (ok) this.attemptsOk++;
    else this.attemptsFailed++;
  }

  gaveUp(): void {
    this.givenUp++;
  }

  droppedFromBacklog(): void {
    this.droppedWaiting++;
  }

  families(): MetricFamily[] {
    return [
      family('outpost_diode_send_attempts_total', 'Attempts to send a batch across the diode, by outcome (ok, failed).', 'counter', [
        { value: this.attemptsOk, labels: { outcome: 'ok' } },
        { value: this.attemptsFailed, labels: { outcome: 'failed' } },
      ]),
      family(
        'outpost_diode_batches_dropped_total',
        'Batches dropped unsent, by reason: gave_up (every attempt failed: collect.retry_limit) or backlog (the diode did not keep up).',
        'counter',
        [
          { value: this.givenUp, labels: { reason: 'gave_up' } },
          { value: this.droppedWaiting, labels: { reason: 'backlog' } },
        ],
      ),
    ];
  }
}
