// The admin API, for the panel and for scripts: `Authorization: Bearer <admin_key>`, or the session
// cookie from POST /api/admin/login. Reads come from this front's replica; changes go to the domains
// actor, the one owner of the state. Failed logins and failed admin credentials are rate limited per
// client and logged (the client's address, never the key).
import { z } from 'zod';
import type { ActorContext } from '../../../src/actor/actor.js';
import type { PeerLink } from '../../../src/actor/rpc.js';
import { safeEqual } from '../../../src/crypto/constant-time.js';
import { OutpostError } from '../../../src/errors.js';
import { expiredCookie, serializeCookie } from '../../../src/http/cookies.js';
import { RateLimiter } from '../../../src/http/rate-limit.js';
import { jsonType } from '../../../src/http/reply.js';
import type { Router } from '../../../src/http/router.js';
import type { HttpServer } from '../../../src/http/server.js';
import type { RequestInfo } from '../../../src/http/request.js';
import { EventStream } from '../../../src/http/sse.js';
import type { DomainsApi } from '../domains/protocol.js';
import { summaryOf } from '../domains/summary.js';
import type { HttpFrontConfig } from '../../../src/http/front-config.js';
import type { CerthubCaInfo, CerthubServerInfo, CerthubSessionAnswer, CerthubSite } from './protocol.js';
import type { ClientAddresses } from './client-addresses.js';
import type { DomainReplica, ReplicaEntry } from './replica.js';
import { sessionCookieName, Sessions } from './sessions.js';
import { revocationReasonNames } from '../acme/revocation-reasons.js';
import { adminCredential, type AuditRecorder, type AuditSubject } from '../audit/recorder.js';
import { mountAuditRoute } from '../audit/routes.js';
import { mountHostTokenRoutes } from './host-token-routes.js';

/** A session unused this long ends; sessions.ts bounds its whole lifetime too. */
const sessionIdleMs = 2 * 3_600_000;
/** Wrong admin keys a client address may send: 10 at once, then one every 30 s. */
const failedLoginLimit = { limit: 10, windowMs: 300_000 };
/**
 * Wrong admin credentials on the admin API: a failures-only limit holds one token per request in
 * flight, so this one leaves room for scripts that send many requests at once.
 */
const failedAdminCredentialLimit = { limit: 60, windowMs: 60_000 };
/** Log records a stream starts with when the request names no backlog, and the most it may ask for. */
const logBacklog = 500;
const maxLogBacklog = 1000;

// Empty names and targets pass the schema on purpose: the domains actor refuses them in words
// ("give a name"), as the panel says them (domains/input-words.ts).
const profileField = z.string().max(64).nullable().optional();
// The count of names is checked by the domains actor (name-set.ts), which says the CA's limit; this bound keeps bodies small.
const namesField = z.array(z.string().max(253)).max(1000).optional();
const newDomainBody = z.strictObject({
  name: z.string().max(253),
  target: z.string().max(253),
  adopt: z.boolean().optional(),
  profile: profileField,
  names: namesField,
  wildcard_records: z.boolean().optional(),
  own_key: z.boolean().optional(),
});
const changeBody = z
  .strictObject({
    target: z.string().max(253).optional(),
    adopt: z.boolean().optional(),
    profile: profileField,
    names: namesField,
    wildcard_records: z.boolean().optional(),
    own_key: z.boolean().optional(),
  })
  .refine(
    (body) =>
      body.target !== undefined || body.profile !== undefined || body.names !== undefined || body.wildcard_records !== undefined || body.own_key !== undefined,
    { message: 'needs target, profile, names, wildcard_records or own_key' },
  );
const loginBody = z.strictObject({ key: z.string().min(1).max(512) });
const revokeBody = z.strictObject({ reason: z.enum(revocationReasonNames) });
/** The panel's PKCS#12 download: the password the admin typed, and the form (src/crypto/pkcs12.ts). */
const p12Body = z.strictObject({ password: z.string().min(1).max(1024), legacy: z.boolean().default(false) });

export interface AdminMount {
  router: Router;
  server: HttpServer;
  actor: ActorContext<HttpFrontConfig>;
  site: CerthubSite;
  replica: DomainReplica;
  domains: PeerLink<DomainsApi>;
  clients: ClientAddresses;
  audit: AuditRecorder;
}

/** The line a wrong admin key writes; docs/certhub.md documents it for fail2ban. */
export const failedLoginMessage = 'certhub: failed admin login';

/** Who made an admin request: the session it came with, or null for the admin key as a bearer token. */
interface AdminPrincipal {
  session: string | null;
}

export function mountAdminRoutes({ router, server, actor, site, replica, domains, clients, audit }: AdminMount): void {
  // One count per front, made with the front: a restarted front starts afresh, as its sessions do.
  const failedLogins = new RateLimiter(failedLoginLimit);
  const failedAdminCredentials = new RateLimiter(failedAdminCredentialLimit);
  const sessions = new Sessions(sessionIdleMs);
  const cookieOptions = { secure: site.secureCookies };
  const sessionCookie = sessionCookieName(site.secureCookies);
  const find = (name: string): ReplicaEntry => {
    const entry = replica.get(name);
    if (entry === undefined) throw new OutpostError('ERR_NOT_FOUND', `no domain ${name}`);
    return entry;
  };
  const material = (name: string) => {
    const entry = find(name);
    const pem = replica.material(entry);
    if (pem === null) throw new OutpostError('ERR_CONFLICT', `the certificate of ${entry.domain.name} is not issued yet (status: ${entry.domain.status})`);
    return { name: entry.domain.name, material: pem };
  };

  /** What the audit log says of an admin request before it runs. */
  const subject = (
    request: Pick<RequestInfo<unknown, AdminPrincipal>, 'auth' | 'remoteAddress' | 'headers'>,
    action: AuditSubject['action'],
    domain: string | null,
    note?: string,
  ): AuditSubject => ({ action, by: adminCredential(request.auth.session), client: clients.of(request), domain, ...(note === undefined ? {} : { note }) });

  /** A stream opened under a session closes when the session ends; the page then asks for the key. */
  const endWithSession = ({ session }: AdminPrincipal, stream: EventStream) => {
    if (session !== null) stream.onClose(sessions.onEnd(session, () => stream.close()));
  };

  router
    .post(
      '/api/admin/login',
      async (request, reply) => {
        const client = clients.of(request);
        if (!safeEqual(request.body.key, site.adminKey)) {
          actor.log.warn(failedLoginMessage, { client });
          await audit.record({ action: 'login', by: 'none', client, domain: null }, 'ERR_UNAUTHORIZED');
          throw new OutpostError('ERR_UNAUTHORIZED', 'wrong admin key');
        }
        const id = sessions.open();
        actor.log.info('admin logged in', { client });
        await audit.record({ action: 'login', by: adminCredential(id), client, domain: null }, 'ok');
        reply.send(204, '', { 'Set-Cookie': serializeCookie(sessionCookie, id, { ...cookieOptions, maxAge: sessions.lifetimeSeconds }) });
      },
      { json: loginBody, rateLimit: clients.failureRule(failedLogins, actor.log, 'failed admin logins'), sameOrigin: true },
    )
    // The panel asks on load whether its cookie still holds a session: an answer, not a 401, since
    // a page that is simply not logged in yet has done nothing wrong (browsers log every 401).
    .get('/api/admin/session', (request, reply) => {
      const id = request.cookies.get(sessionCookie);
      reply.json(200, { active: id !== undefined && sessions.check(id), demo: site.demo } satisfies CerthubSessionAnswer, { 'Cache-Control': 'no-store' });
    })
    // Every session, not only this one: a logout is also how an operator who suspects a copied cookie
    // throws it out. A request without a live session cannot log the others out.
    .post(
      '/api/admin/logout',
      async (request, reply) => {
        const id = request.cookies.get(sessionCookie);
        if (id !== undefined && sessions.check(id)) {
          sessions.closeAll();
          await audit.record({ action: 'logout', by: adminCredential(id), client: clients.of(request), domain: null }, 'ok');
        }
        reply.send(204, '', { 'Set-Cookie': expiredCookie(sessionCookie, cookieOptions) });
      },
      { sameOrigin: true },
    );

  const admin = router.group<AdminPrincipal>({
    auth: {
      bearer: (token, request) => {
        if (safeEqual(token, site.adminKey)) return { session: null };
        actor.log.warn(failedLoginMessage, { client: clients.of(request), with: 'bearer' });
        return undefined;
      },
      session: { cookie: sessionCookie, check: (id) => (sessions.check(id) ? { session: id } : undefined) },
    },
    rateLimit: clients.failureRule(failedAdminCredentials, actor.log, 'failed admin credentials'),
  });
  mountAuditRoute(admin, actor.peer(site.audit));
  mountHostTokenRoutes({ admin, replica, domains, audit, subject });
  const serverInfo = JSON.stringify({ pin: site.pin ?? null, insecure_http: site.insecureHttp } satisfies CerthubServerInfo);
  admin
    .get('/api/admin/server', (_request, reply) => reply.send(200, serverInfo, { 'Content-Type': jsonType, 'Cache-Control': 'no-store' }))
    // Asked of the CA through the acme actor, which reads its directory: a CA that cannot be reached is 502.
    .get('/api/admin/ca', async (_request, reply) => {
      const { ca } = site;
      const answer: CerthubCaInfo =
        ca === undefined
          ? { directory_url: null, profiles: null, default_profile: null }
          : { directory_url: ca.directoryUrl, profiles: await domains.call((api) => api.caProfiles()), default_profile: ca.profile ?? null };
      reply.json(200, answer, { 'Cache-Control': 'no-store' });
    })
    .get('/api/admin/domains', (request, reply) => {
      const deployment = request.query.get('deployment');
      if (deployment === null) return reply.send(200, replica.listJson(), { 'Content-Type': jsonType, 'Cache-Control': 'no-store' });
      if (deployment !== 'stale') throw new OutpostError('ERR_BAD_REQUEST', 'deployment must be stale (domains with a stale host, or served nowhere)');
      reply.json(200, { domains: replica.staleDomains() }, { 'Cache-Control': 'no-store' });
    })
    .post(
      '/api/admin/domains',
      async (request, reply) => {
        const domain = await audit.around(
          subject(
            request,
            'add',
            request.body.name,
            `target ${request.body.target}${request.body.names === undefined || request.body.names.length === 0 ? '' : `, names ${request.body.names.join(' ')}`}`,
          ),
          () => domains.call((api) => api.add(request.body)),
          (added) => added.name,
        );
        replica.applyView(domain);
        reply.json(201, replica.shown(domain));
      },
      { json: newDomainBody },
    )
    .get('/api/admin/domains/:name', (request, reply) =>
      reply.json(200, replica.detail(find(request.params.name ?? '').domain), { 'Cache-Control': 'no-store' }),
    )
    // A host taken out of service stops reporting and turns stale: the operator removes it. It comes back with its next report.
    .delete('/api/admin/domains/:name/hosts/:id', async (request, reply) => {
      const id = request.params.id ?? '';
      await audit.around(
        subject(request, 'host.remove', request.params.name ?? '', `host ${id}`),
        async () => {
          const found = find(request.params.name ?? '').domain.name;
          await domains.call((api) => api.removeHost(found, id));
          return found;
        },
        (name) => name,
      );
      reply.send(204, '');
    })
    .patch(
      '/api/admin/domains/:name',
      async (request, reply) => {
        const { target, adopt, profile, names, wildcard_records, own_key } = request.body;
        const name = request.params.name ?? '';
        const change = [
          target === undefined ? undefined : `target ${target}`,
          profile === undefined ? undefined : `profile ${profile ?? 'default'}`,
          names === undefined ? undefined : `names ${names.join(' ') || '(none)'}`,
          wildcard_records === undefined ? undefined : `wildcard records ${wildcard_records ? 'on' : 'off'}`,
          own_key === undefined ? undefined : `own_key ${String(own_key)}`,
        ]
          .filter((part) => part !== undefined)
          .join(', ');
        const domain = await audit.around(
          subject(request, 'edit', name, change),
          async () => {
            // The profile first: a profile the CA does not list refuses the whole change before the target moves.
            let changed = profile === undefined ? undefined : await domains.call((api) => api.setProfile(name, profile));
            if (names !== undefined || wildcard_records !== undefined) {
              const current = changed ?? find(name).domain;
              changed = await domains.call((api) => api.setNames(name, names ?? current.names, wildcard_records));
            }
            if (target !== undefined) changed = await domains.call((api) => api.setTarget(name, target, adopt));
            if (own_key !== undefined) changed = await domains.call((api) => api.setOwnKey(name, own_key));
            if (changed === undefined) throw new OutpostError('ERR_BAD_REQUEST', 'needs target, profile, names, wildcard_records or own_key');
            return changed;
          },
          (edited) => edited.name,
        );
        replica.applyView(domain);
        reply.json(200, replica.shown(domain));
      },
      { json: changeBody },
    )
    .delete('/api/admin/domains/:name', async (request, reply) => {
      const name = await audit.around(
        subject(request, 'remove', request.params.name ?? ''),
        async () => {
          const found = find(request.params.name ?? '').domain.name;
          await domains.call((api) => api.remove(found));
          return found;
        },
        (removed) => removed,
      );
      replica.apply({ type: 'removed', name });
      reply.send(204, '');
    })
    .post('/api/admin/domains/:name/rotate', async (request, reply) => {
      const domain = await audit.around(
        subject(request, 'rotate', request.params.name ?? ''),
        () => domains.call((api) => api.rotate(request.params.name ?? '')),
        (rotated) => rotated.name,
      );
      replica.applyView(domain);
      reply.json(200, replica.shown(domain));
    })
    .post('/api/admin/domains/:name/retry', async (request, reply) => {
      // Not applied to the replica ahead of its message: the order it starts publishes `issuing`
      // after `pending`, and the stream must show them in that order.
      const domain = await audit.around(
        subject(request, 'retry', request.params.name ?? ''),
        () => domains.call((api) => api.retry(request.params.name ?? '')),
        (retried) => retried.name,
      );
      reply.json(200, replica.shown(domain));
    })
    // Like a retry, the renewal each starts publishes `issuing` after the answer's state.
    .post('/api/admin/domains/:name/renew', async (request, reply) => {
      const name = request.params.name ?? '';
      const domain = await audit.around(
        subject(request, 'renew', name),
        () => domains.call((api) => api.renew(name)),
        (renewed) => renewed.name,
      );
      reply.json(200, replica.shown(domain));
    })
    .post('/api/admin/domains/:name/rekey', async (request, reply) => {
      const name = request.params.name ?? '';
      const domain = await audit.around(
        subject(request, 'rekey', name),
        () => domains.call((api) => api.rekey(name)),
        (rekeyed) => rekeyed.name,
      );
      reply.json(200, replica.shown(domain));
    })
    .post(
      '/api/admin/domains/:name/revoke',
      async (request, reply) => {
        const name = request.params.name ?? '';
        const { domain, ca_answer } = await audit.around(
          subject(request, 'revoke', name, `reason ${request.body.reason}`),
          () => domains.call((api) => api.revoke(name, request.body.reason)),
          (revoked) => revoked.domain.name,
        );
        reply.json(200, { domain: replica.shown(domain), ca_answer });
      },
      { json: revokeBody },
    )
    .get('/api/admin/domains/:name/cert.crt', async (request, reply) => {
      const { name, material: pem } = await audit.around(
        subject(request, 'download.cert', request.params.name ?? ''),
        () => Promise.resolve(material(request.params.name ?? '')),
        (found) => found.name,
      );
      reply.send(200, pem.cert_pem + pem.chain_pem, {
        'Content-Type': 'application/x-pem-file',
        'Content-Disposition': `attachment; filename="${name}.crt"`,
        'Cache-Control': 'no-store',
      });
    })
    .get('/api/admin/domains/:name/key.key', async (request, reply) => {
      const { name, material: pem } = await audit.around(
        subject(request, 'download.key', request.params.name ?? ''),
        () => Promise.resolve(material(request.params.name ?? '')),
        (found) => found.name,
      );
      if (pem.key_pem === '') throw new OutpostError('ERR_CONFLICT', `the key of ${name} is kept on its host: certhub holds none`);
      reply.send(200, pem.key_pem, {
        'Content-Type': 'application/x-pem-file',
        'Content-Disposition': `attachment; filename="${name}.key"`,
        'Cache-Control': 'no-store',
      });
    })
    // Built here from the material certhub holds, by the code certhub-agent fetch --format p12 writes with.
    .post(
      '/api/admin/domains/:name/bundle.p12',
      async (request, reply) => {
        const { password, legacy } = request.body;
        const { name, material: pem } = await audit.around(
          subject(request, 'download.p12', request.params.name ?? '', legacy ? 'legacy form' : 'modern form'),
          () => {
            const found = material(request.params.name ?? '');
            if (found.material.key_pem === '')
              throw new OutpostError('ERR_CONFLICT', `the key of ${found.name} is kept on its host: certhub holds none to bundle`);
            return Promise.resolve(found);
          },
          (found) => found.name,
        );
        const { pkcs12Of } = await import('../../../src/crypto/pkcs12.js');
        const file = await pkcs12Of({ domain: name, certPem: pem.cert_pem, chainPem: pem.chain_pem, keyPem: pem.key_pem }, { password, legacy });
        reply.send(200, file, {
          'Content-Type': 'application/x-pkcs12',
          'Content-Disposition': `attachment; filename="${name}.p12"`,
          'Cache-Control': 'no-store',
        });
      },
      { json: p12Body },
    )
    .get('/api/admin/prefs', async (_request, reply) => reply.json(200, await domains.call((api) => api.prefs()), { 'Cache-Control': 'no-store' }))
    .put('/api/admin/prefs', async (request, reply) => reply.json(200, await domains.call((api) => api.updatePrefs(request.body))), {
      json: z.record(z.string(), z.unknown()),
    })
    .get('/api/admin/logs', (request, reply) => {
      const backlog = logBacklogOf(request.query.get('backlog'));
      const stream = new EventStream(request, reply, server);
      const unsubscribe = actor.subscribeLogs((record) => stream.send(JSON.stringify(record), 'log'), backlog);
      stream.onClose(unsubscribe);
      endWithSession(request.auth, stream);
    })
    .get('/api/admin/events', (request, reply) => {
      const stream = new EventStream(request, reply, server);
      stream.send(replica.summariesJson(), 'snapshot');
      const stop = replica.onChange((message) => {
        if (message.type === 'domain') stream.send(JSON.stringify(summaryOf(message.domain, replica.deploymentOf(message.domain.name))), 'domain');
        else if (message.type === 'hosts') {
          const entry = replica.get(message.name);
          if (entry !== undefined) stream.send(JSON.stringify(summaryOf(entry.domain, message.deployment)), 'domain');
        } else if (message.type === 'removed') stream.send(JSON.stringify({ name: message.name }), 'removed');
      });
      stream.onClose(stop);
      endWithSession(request.auth, stream);
    });
}

/** `?backlog=`: a whole number up to the maximum, refused otherwise (it was read as 0, or clamped, without a word). */
function logBacklogOf(raw: string | null): number {
  if (raw === null) return logBacklog;
  if (!/^\d{1,4}$/.test(raw) || Number(raw) > maxLogBacklog)
    throw new OutpostError('ERR_BAD_REQUEST', `backlog must be a whole number from 0 to ${maxLogBacklog}`);
  return Number(raw);
}
