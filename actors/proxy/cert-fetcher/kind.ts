import { declareActor } from '../../../src/actor/kind.js';
import { declareTopic } from '../../../src/actor/topic.js';
import type { CertFetcherApi, CertFetcherConfig, FetchRoute } from './protocol.js';

export const certFetcherActor = declareActor<CertFetcherApi, CertFetcherConfig>('cert-fetcher', new URL('./index.js', import.meta.url));

/** The routes and tokens after a reload (SIGHUP): the fetcher watches these from then on. */
export const fetchRoutesTopic = declareTopic<FetchRoute[]>('proxy/fetch-routes');
