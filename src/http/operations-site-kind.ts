// Where the operations-only site is (operations-site.ts): a module of its own, as a role's
// `site/kind.ts` is, so the roles that declare such a front do not load the site itself.
import type { OperationsOnlySite } from './operations-site.js';
import { declareSite } from './site.js';

export const operationsOnlySite = declareSite<OperationsOnlySite>('operations', new URL('./operations-site.js', import.meta.url));
