// The PKCS#12 download of certhub's /api/spec (openapi.ts): a domain's key, certificate and chain in
// one file encrypted with the password the admin gives.
import type { SpecParts } from '../openapi-parts.js';

export function p12Paths(parts: SpecParts) {
  const { errorResponse } = parts;
  return {
    '/api/admin/domains/{name}/bundle.p12': {
      parameters: [parts.nameParameter],
      post: {
        summary:
          'key, certificate and chain as one PKCS#12 file encrypted with the password given: AES-256-CBC, PBKDF2 with SHA-256 and a SHA-256 MAC, or with legacy 3DES and a SHA-1 MAC for old Java and Windows',
        security: parts.admin,
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['password'],
                properties: {
                  password: { type: 'string', minLength: 1, maxLength: 1024 },
                  legacy: { type: 'boolean', description: 'the legacy form (default false)' },
                },
              },
            },
          },
        },
        responses: {
          '200': { description: 'the PKCS#12 file', content: { 'application/x-pkcs12': { schema: { type: 'string', format: 'binary' } } } },
          ...parts.bodyErrors,
          ...parts.badParameter,
          '404': errorResponse('no such domain'),
          '409': errorResponse('not issued yet, or the key is kept on the host (own_key)'),
          ...parts.adminErrors,
        },
      },
    },
  };
}
