// The own_key parts of certhub's /api/spec (openapi.ts): a host's CSR for a domain whose key stays on
// it, and the domain fields that say so.
import { maxCsrBytes } from './csr-route.js';
import { keyTypes } from '../key-types.js';
import type { DomainView } from '../domains/protocol.js';

const string = { type: 'string' } as const;
const dateTime = { type: 'string', format: 'date-time' } as const;

/** The domain's own_key fields, for the Domain schema. */
export const ownKeyProperties: Pick<Record<keyof DomainView, object>, 'own_key' | 'csr' | 'csr_wanted'> = {
  own_key: {
    type: 'boolean',
    description: 'the key is kept on the host: certhub makes and stores no key for the domain, and orders for the CSR its host sends',
  },
  csr: {
    type: 'object',
    nullable: true,
    required: ['key_type', 'received_at'],
    description: "the host's latest CSR (own_key): its key type and when it came; null before the first",
    properties: { key_type: { type: 'string', enum: [...keyTypes] }, received_at: dateTime },
  },
  csr_wanted: {
    type: 'boolean',
    description: "certhub waits for the host's next CSR (own_key): before the first certificate, or a renewal due without acme.reuse_csr",
  },
};

/** The own_key field of an add or an edit. */
export const ownKeyInput = {
  type: 'boolean',
  description:
    'keep the key on the host (default false): certhub makes and stores no key, and orders for the CSR the host sends (POST /api/cert/{domain}/csr); marking a domain drops the key certhub held for it',
};

/** The parts of openapi.ts the path below is made of. */
export interface OwnKeyParts {
  errorResponse: (description: string) => object;
  jsonResponse: (description: string, schema: object) => object;
  bodyErrors: object;
  badParameter: object;
  domainRef: object;
}

export function ownKeyPaths(parts: OwnKeyParts) {
  const { errorResponse, jsonResponse } = parts;
  return {
    '/api/cert/{domain}/csr': {
      get: {
        summary:
          "the CSR an own_key domain's host is to send: the names it must hold, exactly (the domain's whole name set), and whether certhub waits for one",
        security: [{ domainToken: [] }],
        parameters: [{ name: 'domain', in: 'path', required: true, description: 'full name or label', schema: string }],
        responses: {
          '200': jsonResponse('what to send', {
            type: 'object',
            required: ['domain', 'names', 'csr_wanted'],
            properties: {
              domain: string,
              names: { type: 'array', items: string, description: "the domain's own name first, then its other names, full" },
              csr_wanted: { type: 'boolean' },
            },
          }),
          ...parts.badParameter,
          '401': errorResponse('wrong token or unknown domain (the same answer for both)'),
          '409': errorResponse('the domain is not own_key: certhub makes its key'),
          '429': errorResponse('too many failed attempts from this address; see Retry-After'),
        },
      },
      post: {
        summary:
          "an own_key domain's host sends its CSR (certhub-agent fetch --own-key): checked, kept, and a certificate ordered for it when the domain has none for its key or waits for a CSR",
        security: [{ domainToken: [] }],
        parameters: [{ name: 'domain', in: 'path', required: true, description: 'full name or label', schema: string }],
        requestBody: {
          required: true,
          description: `at most ${maxCsrBytes} bytes`,
          content: {
            'application/json': {
              schema: { type: 'object', required: ['csr'], properties: { csr: { type: 'string', description: 'one CERTIFICATE REQUEST PEM block' } } },
            },
          },
        },
        responses: {
          '202': jsonResponse('kept; the order, when one is due, runs in the background: GET /api/cert/{domain} serves its certificate once issued', {
            type: 'object',
            required: ['domain', 'status', 'csr_wanted'],
            properties: { domain: string, status: string, csr_wanted: { type: 'boolean' } },
          }),
          ...parts.bodyErrors,
          ...parts.badParameter,
          '400': errorResponse(
            "the CSR is not one PEM block, cannot be read, its signature does not verify, its key type is not one certhub orders, or its names are not exactly the domain's",
          ),
          '401': errorResponse('wrong token or unknown domain (the same answer for both)'),
          '403': errorResponse("the domain is certhub's own tls.domain"),
          '409': errorResponse('the domain is not own_key: certhub makes its key'),
          '429': errorResponse('too many failed attempts from this address; see Retry-After'),
        },
      },
    },
  };
}
