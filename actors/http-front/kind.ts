// The http-front actor kind: one uWS app in its own thread (index.ts), serving the one site its config
// names (src/http/site.ts). Roles ask for fronts through fronts.ts.
import { declareActor, type NoApi } from '../../src/actor/kind.js';
import type { HttpFrontConfig } from '../../src/http/front-config.js';

export const httpFrontActor = declareActor<NoApi, HttpFrontConfig>('http-front', new URL('./index.js', import.meta.url));
