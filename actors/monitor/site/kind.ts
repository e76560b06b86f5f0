// Where the monitor site's definition lives, for the front thread to load (src/http/site.ts).
import { declareSite } from '../../../src/http/site.js';
import type { MonitorSite } from './protocol.js';

export const monitorSite = declareSite<MonitorSite>('monitor', new URL('./site.js', import.meta.url));
