// certhub's routes without the admin key: version, spec, help, and a domain's material for its token
// or a host token issued under it (../hosts/host-tokens.ts).
// A wrong token and an unknown domain answer the same 401, so tokens cannot be used to list domains;
// failed attempts are rate limited per client and logged (client and domain, never the token). A
// token certhub retired (rotated away, or of a removed domain) answers a 401 that says so, and is
// neither counted nor logged as a guess: only the one who held the token can present it.
import type { PeerLink } from '../../../src/actor/rpc.js';
import type { Logger } from '../../../src/log/record.js';
import { OutpostError } from '../../../src/errors.js';
import { RateLimiter } from '../../../src/http/rate-limit.js';
import { HttpRefusal } from '../../../src/http/refusal.js';
import { jsonType, prepareHeaders, textType } from '../../../src/http/reply.js';
import type { Router } from '../../../src/http/router.js';
import { mountVersionRoute } from '../../../src/http/version-route.js';
import { version } from '../../../src/version.js';
import type { DomainsApi, FetchRecord } from '../domains/protocol.js';
import { TokenIds, type AuditRecorder } from '../audit/recorder.js';
import { retiredTokenMessage } from '../domains/retired-tokens.js';
import { RetiredFetchLog } from './retired-fetch-log.js';
import { hostReportSchema, maxReportBytes } from '../hosts/report.js';
import { certhubApiVersion, type CsrAnswer, type CsrRequest } from './protocol.js';
import { csrBody, maxCsrBodyBytes } from './csr-route.js';
import { certhubHelpText } from './help.js';
import { certhubOpenApi } from './openapi.js';
import type { ClientAddresses } from './client-addresses.js';
import type { FetchCounts } from './fetch-counts.js';
import type { DomainReplica, ReplicaEntry } from './replica.js';
import type { HostTokenRecord, HostTokenUse } from '../hosts/host-tokens.js';

/** Who an agent's request is: the domain, and the host token it came with (absent: the domain's token). */
type AgentPrincipal = ReplicaEntry & { hostToken?: HostTokenRecord };

/** Failed token checks a client address may make: 20 at once, then one every 3 s. */
const failedFetchLimit = { limit: 20, windowMs: 60_000 };

/** How often the fetches seen here go to the domains actor: one call for all of them, not one a request. */
const fetchReportMs = 1000;
const certificateHeaders = prepareHeaders({ 'Content-Type': jsonType, 'Cache-Control': 'no-store' });

export interface PublicMount {
  router: Router;
  replica: DomainReplica;
  domains: PeerLink<DomainsApi>;
  clients: ClientAddresses;
  log: Logger;
  fetchCounts: FetchCounts;
  audit: AuditRecorder;
}

/** The line a failed fetch writes; docs/certhub.md documents it for fail2ban. */
export const failedFetchMessage = 'certhub: failed certificate fetch';
/** The line a fetch with a token certhub rotated away or removed with its domain writes (once an hour per domain and client); fail2ban's filter does not match it. */
export const retiredFetchMessage = 'certhub: fetch with a retired token';
/** The most of a requested name a failed fetch logs: the longest DNS name; a longer one is no name of ours anyway. */
const maxLoggedNameLength = 253;

export function mountPublicRoutes({ router, replica, domains, clients, log, fetchCounts, audit }: PublicMount): void {
  const tokenIds = new TokenIds();
  const failedFetches = new RateLimiter(failedFetchLimit);
  const retiredFetches = new RetiredFetchLog();
  const retiredTokenRequests = new WeakSet<object>();
  const fetches = new Map<string, FetchRecord>();
  /** Host token id -> its latest use since the last report. */
  const hostTokenUses = new Map<string, HostTokenUse>();
  const report = setInterval(() => {
    if (hostTokenUses.size > 0) {
      const uses = [...hostTokenUses.values()];
      hostTokenUses.clear();
      domains.call((api) => api.recordHostTokenUses(uses)).catch((error: unknown) => log.debug('a host token use was not recorded', { error: String(error) }));
    }
    if (fetches.size === 0) return;
    const batch = [...fetches.values()];
    fetches.clear();
    domains.call((api) => api.recordFetches(batch)).catch((error: unknown) => log.debug('a fetch was not recorded', { error: String(error) }));
  }, fetchReportMs);
  report.unref();
  const spec = JSON.stringify(certhubOpenApi(version));
  mountVersionRoute(router, 'certhub', certhubApiVersion);
  router
    .get('/api/spec', (_request, reply) => reply.send(200, spec, { 'Content-Type': jsonType }))
    .get('/api/help', (request, reply) => reply.send(200, certhubHelpText(version, request.headers.get('host')), { 'Content-Type': textType }));

  router
    .group({
      auth: {
        bearer: (token, request): AgentPrincipal | undefined => {
          const requested = request.params.domain ?? '';
          const found = replica.withToken(requested, token);
          if (found !== undefined) return found;
          const held = replica.withHostToken(requested, token);
          if (held !== undefined) {
            const { entry, hostToken } = held;
            hostTokenUses.set(hostToken.id, { name: entry.domain.name, id: hostToken.id, at: Date.now() });
            return { ...entry, hostToken };
          }
          fetchCounts.refused();
          const retired = replica.retiredToken(requested, token);
          if (retired === undefined) {
            log.warn(failedFetchMessage, { client: clients.of(request), domain: requested.slice(0, maxLoggedNameLength) });
            return undefined;
          }
          retiredTokenRequests.add(request);
          const client = clients.of(request);
          if (retiredFetches.due(retired.name, client)) log.warn(`${retiredFetchMessage} for ${retired.name}`, { client });
          throw new HttpRefusal('ERR_UNAUTHORIZED', retiredTokenMessage(retired), { 'WWW-Authenticate': 'Bearer error="invalid_token"' });
        },
      },
      // A retired token is an agent not yet given the new one, not a guess: it uses up no allowance.
      rateLimit: clients.failureRule(failedFetches, log, 'failed certificate fetches', (request) => retiredTokenRequests.has(request)),
    })
    .get('/api/cert/:domain', (request, reply) => {
      const { domain } = request.auth;
      // The key certhub serves with: whoever holds it could pose as certhub.
      if (replica.isOwnDomain(domain.name)) {
        fetchCounts.count(domain.name, 'forbidden');
        throw new OutpostError('ERR_FORBIDDEN', `${domain.name} is certhub's own tls.domain: its certificate and key are not given out for a token`);
      }
      const certificateBody = replica.certificateBody(request.auth);
      if (certificateBody === null) {
        fetchCounts.count(domain.name, 'not_issued');
        throw new OutpostError(
          'ERR_CONFLICT',
          `the certificate of ${domain.name} is not issued yet (status: ${domain.status}${domain.error === null ? '' : `, ${domain.error}`})`,
        );
      }
      // The first fetch of a domain in each report stands for all of them: asking uWS for the address
      // of every request would cost a tenth of the answer.
      if (!fetches.has(domain.name)) fetches.set(domain.name, { name: domain.name, from: request.remoteAddress, at: Date.now() });
      fetchCounts.count(domain.name, 'served');
      // Every hand-out is audited (merged per second), so each asks for the client's address.
      const { hostToken } = request.auth;
      // A host token is named as the domain's is: `token:` and a prefix of its SHA-256.
      audit.fetched(domain.name, hostToken === undefined ? tokenIds.of(domain) : `token:${hostToken.sha256.slice(0, 16)}`, clients.of(request));
      reply.send(200, certificateBody, certificateHeaders);
    })
    // certhub-agent's report of what a host serves (../hosts/): kept per host, judged, shown in the panel;
    // made with a host token, it is that token's host's.
    .post(
      '/api/cert/:domain/report',
      async (request, reply) => {
        const { domain, hostToken } = request.auth;
        const holder = hostToken === undefined ? undefined : { id: hostToken.id, host: hostToken.host };
        const deployment = await domains.call((api) => api.reportHost(domain.name, request.body, clients.of(request), holder));
        reply.json(200, { domain: domain.name, deployment });
      },
      { json: hostReportSchema, bodyLimit: maxReportBytes },
    )
    // What CSR an own_key domain's host is to send: the names it must hold (every name of the set).
    .get('/api/cert/:domain/csr', (request, reply) => {
      const { domain } = request.auth;
      if (!domain.own_key) throw new OutpostError('ERR_CONFLICT', `${domain.name} is not own_key: certhub makes and keeps its key`);
      reply.json(200, { domain: domain.name, names: [domain.name, ...domain.names], csr_wanted: domain.csr_wanted } satisfies CsrRequest);
    })
    // The CSR of an own_key domain's host (../domains/own-key.ts): certhub orders for it and keeps no key.
    .post(
      '/api/cert/:domain/csr',
      async (request, reply) => {
        const { domain } = request.auth;
        if (replica.isOwnDomain(domain.name)) throw new OutpostError('ERR_FORBIDDEN', `${domain.name} is certhub's own tls.domain: certhub keeps its key`);
        const view = await domains.call((api) => api.submitCsr(domain.name, request.body.csr));
        reply.json(202, { domain: view.name, status: view.status, csr_wanted: view.csr_wanted } satisfies CsrAnswer);
      },
      { json: csrBody, bodyLimit: maxCsrBodyBytes },
    );
}
