// certhub's routes without the admin key: version, spec, help, and a domain's material for its token.
// A wrong token and an unknown domain answer the same 401, so tokens cannot be used to list domains;
// failed attempts are rate limited per client address.
import type { PeerLink } from '../../../../src/actor/rpc.js';
import { safeEqual } from '../../../../src/crypto/constant-time.js';
import { OutpostError } from '../../../../src/errors.js';
import { RateLimiter } from '../../../../src/http/rate-limit.js';
import { jsonType, textType } from '../../../../src/http/reply.js';
import type { Router } from '../../../../src/http/router.js';
import { version } from '../../../../src/version.js';
import type { DomainsApi } from '../../../domains/protocol.js';
import { certhubHelpText } from './help.js';
import { certhubOpenApi } from './openapi.js';
import type { CertificateResponse, CerthubVersion } from './protocol.js';
import type { DomainReplica } from './replica.js';

/** Failed token checks a client address may make: 20 at once, then one every 3 s. */
const failedFetches = new RateLimiter({ limit: 20, windowMs: 60_000 });

export function mountPublicRoutes(router: Router, replica: DomainReplica, domains: PeerLink<DomainsApi>, onFetchError: (error: unknown) => void): void {
  const versionJson = JSON.stringify({ product: 'certhub', api_version: 1, version } satisfies CerthubVersion);
  const spec = JSON.stringify(certhubOpenApi(version));
  router
    .get('/api/version', (_request, reply) => reply.send(200, versionJson, { 'Content-Type': jsonType }))
    .get('/api/spec', (_request, reply) => reply.send(200, spec, { 'Content-Type': jsonType }))
    .get('/api/help', (request, reply) => reply.send(200, certhubHelpText(version, request.headers.get('host')), { 'Content-Type': textType }));

  router
    .group({
      auth: {
        bearer: (token, request) => {
          const entry = replica.get(request.params.domain ?? '');
          // Compared even when the domain is unknown, so both refusals take the same time.
          const matches = safeEqual(token, entry?.domain.token ?? '');
          return matches && entry !== undefined ? entry : undefined;
        },
      },
      rateLimit: { limiter: failedFetches, count: 'failures' },
    })
    .get('/api/cert/:domain', (request, reply) => {
      const { domain, material } = request.auth;
      const from = request.remoteAddress;
      if (material === null || domain.expires_at === null) {
        throw new OutpostError('ERR_CONFLICT', `the certificate of ${domain.name} is not issued yet (status: ${domain.status}${domain.error === null ? '' : `, ${domain.error}`})`);
      }
      const answer: CertificateResponse = { cert_pem: material.cert_pem, chain_pem: material.chain_pem, key_pem: material.key_pem, expires_at: domain.expires_at };
      reply.send(200, JSON.stringify(answer), { 'Content-Type': jsonType, 'Cache-Control': 'no-store' });
      domains.call((api) => api.recordFetch(domain.name, from, Date.now())).catch(onFetchError);
    });
}
