// GET /api/admin/audit: pages of the audit log for the panel's Audit tab and for scripts.
import { OutpostError } from '../../../src/errors.js';
import type { PeerLink } from '../../../src/actor/rpc.js';
import type { RouteGroup } from '../../../src/http/router.js';
import { auditActions } from './entry.js';
import type { AuditApi, AuditQuery } from './protocol.js';

export const defaultAuditPage = 50;
export const maxAuditPage = 500;

export function mountAuditRoute<Principal>(admin: RouteGroup<Principal>, audit: PeerLink<AuditApi>): void {
  admin.get('/api/admin/audit', async (request, reply) => {
    const query = auditQueryOf(request.query);
    reply.json(200, await audit.call((api) => api.page(query)), { 'Cache-Control': 'no-store' });
  });
}

/** `?action=&domain=&before=&limit=`, each optional and checked when given (an empty value is refused), refused in words otherwise. */
export function auditQueryOf(params: URLSearchParams): AuditQuery {
  const action = params.get('action');
  if (action !== null && !(auditActions as readonly string[]).includes(action))
    throw new OutpostError('ERR_BAD_REQUEST', `action must be one of ${auditActions.join(', ')}`);
  const domain = params.get('domain')?.trim().toLowerCase() ?? null;
  if (domain !== null && (domain === '' || domain.length > 253)) throw new OutpostError('ERR_BAD_REQUEST', 'domain must be a name of 1 to 253 characters');
  const before = wholeNumber(params.get('before'), 'before', Number.MAX_SAFE_INTEGER);
  const limit = wholeNumber(params.get('limit'), 'limit', maxAuditPage) ?? defaultAuditPage;
  if (limit === 0) throw new OutpostError('ERR_BAD_REQUEST', `limit must be a whole number from 1 to ${maxAuditPage}`);
  return {
    limit,
    ...(action === null ? {} : { action }),
    ...(domain === null ? {} : { domain }),
    ...(before === undefined ? {} : { before }),
  };
}

function wholeNumber(raw: string | null, name: string, max: number): number | undefined {
  if (raw === null) return undefined;
  if (!/^\d{1,16}$/.test(raw) || Number(raw) > max) throw new OutpostError('ERR_BAD_REQUEST', `${name} must be a whole number up to ${max}`);
  return Number(raw);
}
