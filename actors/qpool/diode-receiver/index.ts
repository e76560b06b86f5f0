// The diode-receiver actor's thread entry.
import { systemClock } from '../../../src/actor/clock.js';
import { runActor } from '../../../src/actor/worker-entry.js';
import type { DiodeLoopbackApi } from '../diode-sender/protocol.js';
import type { ValueSource } from '../values/record.js';
import { diodeReceiverActor } from './kind.js';
import { LineParser } from './line-parser.js';
import { Receiver } from './logic.js';
import { runReceiveCommand } from './receive-command.js';

runActor(diodeReceiverActor, {
  async start(context) {
    const { config } = context;
    const pool = context.peer(config.pool);
    const sources = new Set<ValueSource>(config.acceptDemo ? ['keyed', 'legacy', 'demo'] : ['keyed', 'legacy']);
    const command = config.command;
    // Loaded only where a command runs and metrics are on: prom-client costs a thread startup time.
    const watch =
      command !== undefined && context.metrics.enabled
        ? (await import('../command-metrics.js')).registerCommandMetrics(context.metrics.registry, 'diode_receive')
        : undefined;
    const receiver = new Receiver(config, {
      run: (onChunk) => runReceiveCommand(command ?? [], onChunk, watch),
      // Copied, not transferred: should the pool go away before it answers, the receiver still has the batch.
      ingest: (values) => pool.call((api) => api.ingest(values)),
      poolReady: () => pool.call((api) => api.readyToStore()),
      parser: new LineParser(sources),
      clock: systemClock,
      log: context.log,
    });
    if (command !== undefined) void receiver.loop();
    const api: DiodeLoopbackApi = {
      receive: (chunk) => receiver.accept(Buffer.from(chunk, 'utf8')),
    };
    return {
      api,
      stop() {
        receiver.stop();
        return Promise.resolve();
      },
    };
  },
});
