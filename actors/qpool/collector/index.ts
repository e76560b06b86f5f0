// The collector actor's thread entry.
import { randomBytes } from 'node:crypto';
import { systemClock } from '../../../src/actor/clock.js';
import { runActor } from '../../../src/actor/worker-entry.js';
import { fetchText } from './fetch-text.js';
import { KeyedLedger } from './ledger.js';
import { CollectorFigures } from './collector-figures.js';
import { Collector } from './logic.js';
import { collectorActor } from './kind.js';

runActor(collectorActor, {
  start(context) {
    const { config } = context;
    const sender = context.peer(config.sender);
    const figures = context.metrics.enabled ? new CollectorFigures(config.sources.map(({ source }) => source)) : undefined;
    if (figures !== undefined) context.metrics.addSource(() => figures.families());
    const collector = new Collector(config.sources, config.timeoutMs, {
      clock: systemClock,
      fetchText,
      randomBytes,
      ledger: new KeyedLedger(config.ledgerFile),
      send(batch) {
        sender
          .call((api) => api.send(batch.lines, batch.count))
          .catch((error: unknown) => {
            context.log.error(`a batch of ${batch.count} values did not reach the diode sender: ${String(error)}`);
          });
      },
      log: context.log,
      ...(figures === undefined ? {} : { figures }),
    });
    // The first cycle runs in the background: a legacy request takes minutes and ready must not wait for it.
    collector.start().catch((error: unknown) => context.log.error(`collection did not start: ${String(error)}`));
    return {
      stop() {
        collector.stop();
        return Promise.resolve();
      },
    };
  },
});
