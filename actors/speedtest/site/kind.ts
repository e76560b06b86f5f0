// Where the speedtest site's definition lives, for the front thread to load (src/http/site.ts).
import { declareSite } from '../../../src/http/site.js';
import type { SpeedtestSite } from './protocol.js';

export const speedtestSite = declareSite<SpeedtestSite>('speedtest', new URL('./site.js', import.meta.url));
