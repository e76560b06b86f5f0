// The diode-sender actor's thread entry.
import { systemClock } from '../../../src/actor/clock.js';
import { runActor } from '../../../src/actor/worker-entry.js';
import { DiodeSender } from './logic.js';
import { diodeSenderActor } from './kind.js';
import type { DiodeSenderApi } from './protocol.js';
import { runSendCommand, type TransferOutcome } from './send-command.js';
import { SenderFigures } from './sender-figures.js';

runActor(diodeSenderActor, {
  async start(context) {
    const { config } = context;
    let transfer: (lines: string) => Promise<TransferOutcome>;
    /** Aborted once the grace period is over: a send command still running is killed, not left behind. */
    const stopping = new AbortController();
    if (config.loopbackReceiver !== undefined) {
      const receiver = context.peer(config.loopbackReceiver);
      transfer = (lines) =>
        receiver
          .call((api) => api.receive(lines))
          .then(
            (): TransferOutcome => ({ ok: true }),
            (error: unknown): TransferOutcome => ({ ok: false, reason: `the loopback receiver did not take it: ${String(error)}` }),
          );
    } else {
      const command = config.command ?? [];
      // Loaded only where a command runs and metrics are on: prom-client costs a thread startup time.
      const watch = context.metrics.enabled
        ? (await import('../command-metrics.js')).registerCommandMetrics(context.metrics.registry, 'diode_send')
        : undefined;
      transfer = (lines) => runSendCommand(command, lines, config.timeoutMs, watch, stopping.signal);
    }
    const figures = context.metrics.enabled ? new SenderFigures() : undefined;
    if (figures !== undefined) context.metrics.addSource(() => figures.families());
    const sender = new DiodeSender(config.retryLimit, config.retryDelayMs, {
      transfer,
      clock: systemClock,
      log: context.log,
      ...(figures === undefined ? {} : { figures }),
    });
    const api: DiodeSenderApi = {
      send(lines, count) {
        sender.enqueue(lines, count);
        return Promise.resolve();
      },
    };
    return {
      api,
      async stop(graceMs) {
        // A transfer in progress may finish within the grace period; queued batches are not started,
        // and one still running after it is killed with its process group.
        await Promise.race([sender.idle(), systemClock.sleep(graceMs)]);
        sender.stop();
        stopping.abort();
      },
    };
  },
});
