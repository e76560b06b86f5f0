// The host tokens' paths of certhub's /api/spec (../site/openapi.ts): issue, list and revoke. The
// properties are typed against the views, so a field added there fails to compile here until it is described.
import { hostTokenIdPattern, maxHostTokensPerDomain, type HostTokenView, type IssuedHostToken } from './host-tokens.js';
import type { SpecParts } from '../openapi-parts.js';

const dateTime = { type: 'string', format: 'date-time' } as const;
const idSchema = { type: 'string', pattern: hostTokenIdPattern.source, description: "the token's id: it names the token, and is no secret" } as const;

const viewProperties: Record<keyof HostTokenView, object> = {
  id: idSchema,
  host: { type: 'string', maxLength: 253, description: 'the host it is for: every report made with it carries this host name' },
  created_at: dateTime,
  last_used_at: { ...dateTime, nullable: true, description: 'the last request made with it, to the minute; null before the first' },
};
const issuedProperties: Record<keyof IssuedHostToken, object> = {
  ...viewProperties,
  domain: { type: 'string', description: "the domain's full name" },
  token: {
    type: 'string',
    pattern: '^chh_[A-Za-z0-9_-]{43}$',
    description: 'the token, shown in this answer only: certhub keeps its SHA-256 and cannot show it again',
  },
};

export const hostTokenSchema = { type: 'object', required: Object.keys(viewProperties), properties: viewProperties };

/** The paths' operations; the security schemes and response makers are the spec's own. */
export function hostTokenPaths(parts: SpecParts): Record<string, object> {
  const { errorResponse, jsonResponse } = parts;
  return {
    '/api/admin/domains/{name}/host-tokens': {
      parameters: [parts.nameParameter],
      get: {
        summary: 'the host tokens issued under the domain, oldest first: host, id, creation and last use, never the token',
        security: parts.admin,
        responses: {
          '200': jsonResponse('the tokens', {
            type: 'object',
            required: ['domain', 'tokens'],
            properties: { domain: { type: 'string' }, tokens: { type: 'array', items: hostTokenSchema } },
          }),
          ...parts.badParameter,
          '404': errorResponse('no such domain'),
          ...parts.adminErrors,
        },
      },
      post: {
        summary:
          "issue a token for one host under the domain: it fetches, sends CSRs and reports as the domain's token does, for this domain only, and its reports carry the host name given; revoking it shuts out this host alone",
        security: parts.admin,
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['host'],
                properties: {
                  host: { type: 'string', minLength: 1, maxLength: 253, description: 'the host name, printable, without leading or trailing spaces' },
                },
              },
            },
          },
        },
        responses: {
          '201': jsonResponse('issued; the only answer that holds the token', {
            type: 'object',
            required: Object.keys(issuedProperties),
            properties: issuedProperties,
          }),
          ...parts.bodyErrors,
          '400': errorResponse('an empty host name, or one with control characters or leading or trailing spaces'),
          '403': errorResponse("the domain is certhub's own tls.domain"),
          '404': errorResponse('no such domain'),
          '409': errorResponse(`the host has a token under this domain already, or the domain has ${maxHostTokensPerDomain}`),
          ...parts.adminErrors,
        },
      },
    },
    '/api/admin/domains/{name}/host-tokens/{id}': {
      parameters: [parts.nameParameter, { name: 'id', in: 'path', required: true, schema: idSchema }],
      delete: {
        summary:
          'revoke a host token: the next request made with it is refused (401, saying it was revoked); the domain token and the other host tokens work on',
        security: parts.admin,
        responses: {
          '204': { description: 'revoked' },
          '400': errorResponse('the id is not 16 hex digits, or the name is not valid percent-encoding'),
          '404': errorResponse('no such domain or host token'),
          ...parts.adminErrors,
        },
      },
    },
  };
}
