// The pool actor's API over its PoolService: what the diode receiver and the fronts call. Every
// change is counted by `changed`, which answers the count a take reports back (see TakeAnswer).
import type { PoolService } from './logic.js';
import type { PoolApi } from './protocol.js';
import { asBuffer } from '../values/batch.js';

export function poolApi(service: PoolService, changed: () => number): PoolApi {
  return {
    ingest: (batch) => {
      const result = service.ingest(asBuffer(batch));
      changed();
      return Promise.resolve(result);
    },
    take: async ({ count, hold, holding }) => {
      if (holding !== undefined) service.report(holding);
      const batch = await service.take(count, holding === undefined || hold === undefined ? undefined : { count: hold, holding });
      return { ...batch, changes: changed() };
    },
    report: (holding, returned) => {
      service.report(holding, returned === undefined ? undefined : asBuffer(returned));
      return Promise.resolve({ changes: changed(), status: service.status() });
    },
    status: () => Promise.resolve(service.status()),
    readyToStore: () => service.readyToStore(),
  };
}
