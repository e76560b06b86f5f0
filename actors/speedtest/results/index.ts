// The results actor's thread entry: opens the results file and keeps the results the fronts save.
import { chmod } from 'node:fs/promises';
import { FatalActorError } from '../../../src/actor/actor.js';
import { runActor } from '../../../src/actor/worker-entry.js';
import { resultsActor } from './kind.js';
import { ResultsBook } from './logic.js';
import { openResultsStore } from './open-store.js';

runActor(resultsActor, {
  async start({ config, log }) {
    let book: ResultsBook;
    try {
      const { store, kind } = await openResultsStore(config.file, log);
      book = await ResultsBook.open(store, { maxResults: config.maxResults, keepAddress: config.keepAddress, serverName: config.serverName });
      // Results may carry addresses: the file is the server's alone.
      await chmod(config.file, 0o600);
      log.info(`results in ${config.file} (${kind === 'sqlite' ? 'SQLite' : 'JSON Lines'}): ${book.size} kept, at most ${config.maxResults}`);
    } catch (error) {
      throw new FatalActorError(`the results file ${config.file} cannot be used: ${(error as Error).message}`);
    }
    return {
      api: {
        save: (input, address) => book.save(input, address),
        get: (id) => Promise.resolve(book.get(id)),
        recent: (limit) => Promise.resolve(book.recent(limit)),
      },
      stop: () => book.close(),
    };
  },
});
