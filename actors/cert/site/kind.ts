// Where the certhub site's definition lives, for the front thread to load (src/http/site.ts).
import { declareSite } from '../../../src/http/site.js';
import type { CerthubSite } from './protocol.js';

export const certhubSite = declareSite<CerthubSite>('certhub', new URL('./site.js', import.meta.url));
