import { declareActor } from '../../../src/actor/kind.js';
import type { CertFetcherApi, CertFetcherConfig } from './protocol.js';

export const certFetcherActor = declareActor<CertFetcherApi, CertFetcherConfig>('cert-fetcher', new URL('./index.js', import.meta.url));
