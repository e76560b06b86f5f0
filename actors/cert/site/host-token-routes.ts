// The admin API of host tokens (../hosts/host-tokens.ts): issue one under a domain for a named host
// (the token is in that answer and nowhere else), list them (never a secret), revoke one. Issues and
// revocations are audited with the host's name and the token's id, never the token.
import { z } from 'zod';
import type { PeerLink } from '../../../src/actor/rpc.js';
import { OutpostError } from '../../../src/errors.js';
import type { RequestInfo } from '../../../src/http/request.js';
import type { RouteGroup } from '../../../src/http/router.js';
import type { AuditRecorder, AuditSubject } from '../audit/recorder.js';
import type { DomainsApi } from '../domains/protocol.js';
import { hostTokenIdPattern } from '../hosts/host-tokens.js';
import type { DomainReplica } from './replica.js';

// An empty or spaced name passes the schema on purpose: the domains actor refuses it in words.
const issueBody = z.strictObject({ host: z.string().max(253) });

export interface HostTokenMount<Auth> {
  admin: RouteGroup<Auth>;
  replica: DomainReplica;
  domains: PeerLink<DomainsApi>;
  audit: AuditRecorder;
  /** What the audit log says of an admin request before it runs (admin-routes.ts). */
  subject: (request: RequestInfo<unknown, Auth>, action: AuditSubject['action'], domain: string | null, note?: string) => AuditSubject;
}

export function mountHostTokenRoutes<Auth>({ admin, replica, domains, audit, subject }: HostTokenMount<Auth>): void {
  const domainName = (nameOrLabel: string): string => {
    const entry = replica.get(nameOrLabel);
    if (entry === undefined) throw new OutpostError('ERR_NOT_FOUND', `no domain ${nameOrLabel}`);
    return entry.domain.name;
  };

  admin
    .get('/api/admin/domains/:name/host-tokens', (request, reply) => {
      const name = domainName(request.params.name ?? '');
      reply.json(200, { domain: name, tokens: replica.hostTokens.of(name) }, { 'Cache-Control': 'no-store' });
    })
    .post(
      '/api/admin/domains/:name/host-tokens',
      async (request, reply) => {
        const { host } = request.body;
        const issued = await audit.around(
          subject(request, 'host-token.issue', request.params.name ?? '', `host ${host}`),
          () => {
            const name = domainName(request.params.name ?? '');
            // As its certificate is never given out for a token (public-routes.ts).
            if (replica.isOwnDomain(name)) throw new OutpostError('ERR_FORBIDDEN', `${name} is certhub's own tls.domain: it has no host tokens`);
            return domains.call((api) => api.issueHostToken(name, host));
          },
          (made) => made.domain,
        );
        reply.json(201, issued, { 'Cache-Control': 'no-store' });
      },
      { json: issueBody },
    )
    .delete('/api/admin/domains/:name/host-tokens/:id', async (request, reply) => {
      const id = request.params.id ?? '';
      const requested = request.params.name ?? '';
      const known = replica.get(requested)?.domain.name;
      const host = known === undefined ? undefined : replica.hostTokens.of(known).find((token) => token.id === id)?.host;
      await audit.around(
        subject(request, 'host-token.revoke', requested, `id ${id}${host === undefined ? '' : `, host ${host}`}`),
        async () => {
          if (!hostTokenIdPattern.test(id)) throw new OutpostError('ERR_BAD_REQUEST', 'a host token id is 16 hex digits');
          const name = domainName(requested);
          await domains.call((api) => api.revokeHostToken(name, id));
          return name;
        },
        (name) => name,
      );
      reply.send(204, '');
    });
}
