// Where the qpool site's definition lives, for the front thread to load (src/http/site.ts).
import { declareSite } from '../../../src/http/site.js';
import type { QpoolSite } from './protocol.js';

export const qpoolSite = declareSite<QpoolSite>('qpool', new URL('./site.js', import.meta.url));
