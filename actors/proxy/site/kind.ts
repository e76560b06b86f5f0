// Where the proxy's operations site lives, for the generic front thread to load (src/http/site.ts).
import { declareSite } from '../../../src/http/site.js';
import type { ProxyOperationsSite } from './site.js';

export const proxyOperationsSite = declareSite<ProxyOperationsSite>('proxy-operations', new URL('./site.js', import.meta.url));
