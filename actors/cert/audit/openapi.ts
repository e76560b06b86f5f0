// GET /api/admin/audit in certhub's /api/spec (../site/openapi.ts). The entry's properties are typed
// against AuditEntry, so a field added there fails to compile here until the document describes it.
import { auditActions, type AuditEntry } from './entry.js';
import { defaultAuditPage, maxAuditPage } from './routes.js';

const string = { type: 'string' } as const;

const entryProperties: Record<keyof AuditEntry, object> = {
  seq: { type: 'integer', description: 'the line number in audit.jsonl, from 1' },
  prev: { type: 'string', description: 'hex SHA-256 of the line before; 64 zeros on the first' },
  at: { type: 'string', format: 'date-time' },
  action: { type: 'string', enum: [...auditActions] },
  by: {
    type: 'string',
    description:
      '`key` (the admin key as a bearer token), `session:<8 hex>`, `token:<16 hex>` (a prefix of the SHA-256 of the credential), `none`, or `certhub`',
  },
  client: { type: 'string', description: "the client's address; empty on certhub's own entries" },
  domain: { type: 'string', nullable: true, description: "the domain's full name, or the name asked for when refused" },
  outcome: { type: 'string', description: '`ok`, or the error code of the refusal' },
  count: { type: 'integer', description: 'fetches merged into the entry (one domain, token and client within a second)' },
  note: string,
};

export const auditEntrySchema = {
  type: 'object',
  required: ['seq', 'prev', 'at', 'action', 'by', 'client', 'domain', 'outcome'],
  properties: entryProperties,
};

/** The path's operations; `admin`, `adminErrors` and the response makers are the spec's own. */
export function auditPaths(parts: {
  security: object;
  adminErrors: object;
  errorResponse: (description: string) => object;
  jsonResponse: (description: string, schema: object) => object;
}): Record<string, object> {
  return {
    '/api/admin/audit': {
      get: {
        summary: 'the audit log, newest first: admin actions and material handed out (audit.jsonl; `certhub audit verify` checks its chain)',
        security: parts.security,
        parameters: [
          { name: 'action', in: 'query', description: 'only this action', schema: { type: 'string', enum: [...auditActions] } },
          { name: 'domain', in: 'query', description: 'only this domain (full name or label)', schema: { type: 'string', maxLength: 253 } },
          {
            name: 'before',
            in: 'query',
            description: 'only entries with a smaller seq: the next_before of the page before',
            schema: { type: 'integer', minimum: 0 },
          },
          {
            name: 'limit',
            in: 'query',
            description: `entries in the page (default ${defaultAuditPage})`,
            schema: { type: 'integer', minimum: 1, maximum: maxAuditPage },
          },
        ],
        responses: {
          '200': parts.jsonResponse('a page', {
            type: 'object',
            required: ['entries', 'next_before'],
            properties: {
              entries: { type: 'array', items: auditEntrySchema },
              next_before: { type: 'integer', nullable: true, description: 'the `before` of the next page; null on the last' },
            },
          }),
          '400': parts.errorResponse('an unknown action, an empty domain, or a before or limit that is not a whole number in range'),
          ...parts.adminErrors,
        },
      },
    },
  };
}
