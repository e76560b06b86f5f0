// The audit actor's thread entry: opens audit.jsonl (cutting a torn last line) and appends what the
// fronts send, one writer for the whole process.
import { runActor } from '../../../src/actor/worker-entry.js';
import { AuditFile } from './audit-file.js';
import { auditActor } from './kind.js';
import type { AuditApi } from './protocol.js';

runActor(auditActor, {
  async start(context) {
    const file = await AuditFile.open(context.config.dataDir, context.log);
    const api: AuditApi = {
      append: (entries) => file.append(entries),
      page: (query) => file.page(query),
    };
    return { api, stop: () => file.close() };
  },
});
