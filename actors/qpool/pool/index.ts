// The pool actor's thread entry: loads the pool files (or starts empty), then serves takes and ingests.
import { FatalActorError } from '../../../src/actor/actor.js';
import { systemClock } from '../../../src/actor/clock.js';
import { runActor } from '../../../src/actor/worker-entry.js';
import { DecryptionError, type DeriveMasterKey } from '../sealed/sealed.js';
import { PoolService } from './logic.js';
import { ValuePool } from './memory.js';
import { PoolFiles, poolFilePaths } from './pool-files.js';
import { poolActor, poolStatusTopic } from './kind.js';
import { restorePool } from './restore.js';
import { poolApi } from './api.js';
import { registerPoolMetrics } from './pool-metrics.js';
import { pbkdf2Job } from '../sealed/jobs.js';

/** The longest a published status lags the pool. */
const statusIntervalMs = 50;

runActor(poolActor, {
  async start(context) {
    const { config, log } = context;
    let service: PoolService;
    let files: PoolFiles | undefined;
    const options = { rewriteAtJournalBytes: config.rewriteAtJournalBytes, retryAfterFailureMs: 1000 };
    if (config.poolFile === undefined) {
      service = new PoolService(new ValuePool(config.capacity, config.servedHistory), { options, clock: systemClock, log });
    } else {
      const path = config.poolFile;
      const derive: DeriveMasterKey = async (passphrase, kdf) =>
        Buffer.from(await context.jobs.run(pbkdf2Job, { password: passphrase, salt: kdf.salt, iterations: kdf.iterations, keyLength: 32 }));
      let loaded;
      try {
        ({ files, loaded } = await PoolFiles.load(path, config.passphrase ?? '', derive));
      } catch (error) {
        if (error instanceof DecryptionError) {
          throw new FatalActorError(
            `the pool could not be decrypted (${error.message}); the files are untouched. Check APP_POOL_KEY; to start over with an empty pool, delete ${Object.values(poolFilePaths(path)).join(', ')} (those there are)`,
          );
        }
        throw new FatalActorError(`the pool files could not be read: ${String(error)}`);
      }
      const restored = restorePool(loaded.snapshot, loaded.journal, config.capacity, config.servedHistory);
      if (loaded.incompleteTailBytes > 0)
        log.warn(
          `ignored an incomplete last record of ${loaded.incompleteTailBytes} bytes in the journal (a write cut short by a crash; it was never answered)`,
        );
      service = new PoolService(restored.pool, {
        servedTotal: restored.servedTotal,
        lastIngest: restored.lastIngest,
        durability: files,
        options,
        clock: systemClock,
        log,
      });
      // Start from a compact snapshot and an empty journal; a failure here is a disk that cannot take the pool.
      try {
        await files.rewrite(service.snapshot());
      } catch (error) {
        throw new FatalActorError(`the pool files could not be written: ${String(error)}`);
      }
      log.info(`${loaded.existed ? 'loaded' : 'created'} ${path}: ${restored.pool.size} values, ${restored.servedTotal} served so far`, {
        journalRecords: loaded.journal.length,
      });
    }
    // The fronts answer /api/status from what is published here, at most every statusIntervalMs
    // however many takes and arrivals came between (under load a status per commit cost a fifth of
    // the values served). Each change is counted, so that a front which answered a take can tell
    // whether the status it holds includes it yet, and asks the pool when it does not.
    let changes = 0;
    let statusTimer: NodeJS.Timeout | undefined;
    let diskFailing = false;
    const statusChanged = () => {
      statusTimer ??= setTimeout(() => {
        statusTimer = undefined;
        context.publish(poolStatusTopic, { changes, status: service.status() });
        // A pool whose files cannot be written serves nothing: the fronts' /readyz says so.
        if (service.diskFailing !== diskFailing) {
          diskFailing = service.diskFailing;
          context.setReadiness(!diskFailing, diskFailing ? 'the pool files cannot be written' : undefined);
        }
      }, statusIntervalMs);
      return ++changes;
    };
    statusChanged();
    registerPoolMetrics(context.metrics.registry, service);
    const api = poolApi(service, statusChanged);
    return {
      api,
      async stop() {
        await service.settle();
        await files?.close();
      },
    };
  },
});
