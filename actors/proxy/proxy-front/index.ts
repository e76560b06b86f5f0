// The proxy role's front thread: a TLS listener forwarding each routed name to its backend.
import { runActor } from '../../../src/actor/worker-entry.js';
import { startProxyFront } from './front.js';
import { proxyFrontActor } from './kind.js';

runActor(proxyFrontActor, { start: startProxyFront });
