// /api/spec of certhub: OpenAPI 3.0 (the version the specification names), every endpoint, the admin
// ones included. The domain's properties are typed against DomainView so a field added there fails
// to compile here until the document describes it.
import { revocationReasonNames } from '../acme/revocation-reasons.js';
import { operationsPaths } from '../../../src/http/operations-openapi.js';
import { versionPath } from '../../../src/http/version-route.js';
import type { DomainView } from '../domains/protocol.js';
import { auditPaths } from '../audit/openapi.js';
import { deploymentSchema, hostPaths, hostSchema } from '../hosts/openapi.js';
import { ownKeyInput, ownKeyPaths, ownKeyProperties } from './own-key-openapi.js';
import { p12Paths } from './p12-openapi.js';
import { hostTokenPaths } from '../hosts/host-token-openapi.js';

const string = { type: 'string' } as const;
const dateTime = { type: 'string', format: 'date-time' } as const;
const nullableDateTime = { type: 'string', format: 'date-time', nullable: true } as const;
const json = 'application/json';

const domainProperties: Record<keyof DomainView, object> = {
  name: { type: 'string', description: 'full name, e.g. app.example.com' },
  label: { type: 'string', description: 'the name under the base domain, e.g. app' },
  target: { type: 'string', description: 'IPv4 address, IPv6 address or host name' },
  record_type: { type: 'string', enum: ['A', 'AAAA', 'CNAME'] },
  profile: {
    type: 'string',
    nullable: true,
    description: "the ACME profile ordered for the domain, its renewals included; null: acme.profile, or the CA's default when that is unset",
  },
  status: { type: 'string', enum: ['pending', 'issuing', 'issued', 'error'] },
  error: { type: 'string', nullable: true, description: 'why the last attempt failed' },
  created_at: dateTime,
  issued_at: nullableDateTime,
  expires_at: nullableDateTime,
  token: { type: 'string', description: 'the per-domain token for GET /api/cert/{domain}' },
  last_fetch: { type: 'object', nullable: true, required: ['at', 'from'], properties: { at: dateTime, from: string } },
  next_attempt_at: nullableDateTime,
  waiting_for: {
    type: 'string',
    enum: ['backoff', 'retry_after', 'budget', 'issuance'],
    nullable: true,
    description:
      "what set next_attempt_at: the backoff after a failure, a refusal's Retry-After (the CA's or the DNS provider's), the CA budget's next slot, or the CA still issuing a finalized order (resumed then, not a failure)",
  },
  renewal: {
    type: 'object',
    required: ['due_at', 'basis'],
    description: 'when the certificate served is to be renewed, and what chose the instant',
    properties: { due_at: nullableDateTime, basis: { type: 'string', enum: ['ari', 'lifetime'], nullable: true } },
  },
  issued_by: {
    type: 'string',
    nullable: true,
    description:
      'the ACME directory URL of the CA that issued the certificate served (one of acme.cas); null before the first certificate, for a demo certificate, or when not known',
  },
  names: {
    type: 'array',
    items: string,
    description:
      'the names the certificate covers beside name, full: www.app.example.com, *.app.example.com, the base domain itself where allow_apex allows it',
  },
  wildcard_records: { type: 'boolean', description: "whether the wildcards among names get the target's address record too (other names always do)" },
  ...ownKeyProperties,
};

const namesProperty = {
  type: 'array',
  maxItems: 99,
  items: { type: 'string', maxLength: 253 },
  description:
    "the names one certificate covers beside name, relative to the base domain as name is (www.app, a.b, *.app, @ for the base domain where allow_apex allows it) or full; each gets the target's address record, a wildcard only with wildcard_records. At most 100 names with name, each label 63 octets, each name 253",
};
const wildcardRecordsProperty = { type: 'boolean', description: "give the wildcards among names the target's address record too; default false" };

const profileProperty = {
  type: 'string',
  nullable: true,
  description:
    "the ACME profile to order (one the CA's directory lists in meta.profiles, e.g. Let's Encrypt's classic, tlsserver or shortlived); null: acme.profile. It applies from the next order on",
};
const error = { type: 'object', required: ['error'], properties: { error: string } };
const errorResponse = (description: string) => ({ description, content: { [json]: { schema: { $ref: '#/components/schemas/Error' } } } });
const jsonResponse = (description: string, schema: object) => ({ description, content: { [json]: { schema } } });
const domainRef = { $ref: '#/components/schemas/Domain' };
const nameParameter = { name: 'name', in: 'path', required: true, description: 'full name or label', schema: string };
const admin = [{ adminKey: [] }, { session: [] }];
const crossOrigin = errorResponse('sent from another origin (Origin or Sec-Fetch-Site): a session cookie or a login counts only from the panel itself');
const adminErrors = {
  '401': errorResponse('missing or wrong admin credentials'),
  '403': crossOrigin,
  '429': errorResponse('too many failed attempts; see Retry-After'),
};
const jsonBody = (schema: object) => ({ required: true, content: { [json]: { schema } } });
/** What the router answers for a JSON body it cannot take, before the route sees it. */
const bodyErrors = {
  '400': errorResponse('the body is not valid JSON or not of the schema (the error names the field)'),
  '413': errorResponse('body too large'),
  '415': errorResponse('not JSON'),
};
/** A path parameter that is not valid percent-encoding (`%zz`) is refused by the router. */
const badParameter = { '400': errorResponse('the name is not valid percent-encoding') };
const pem = { 'application/x-pem-file': { schema: string } };

export function certhubOpenApi(version: string) {
  return {
    openapi: '3.0.3',
    info: { title: 'certhub', version, description: 'DNS records and ACME DNS-01 certificates for subdomains, handed out per domain token.' },
    components: {
      securitySchemes: {
        domainToken: {
          type: 'http',
          scheme: 'bearer',
          description: "a domain's token, or a host token issued under the domain (POST /api/admin/domains/{name}/host-tokens)",
        },
        adminKey: { type: 'http', scheme: 'bearer', description: 'the admin key (admin_key in config.json)' },
        metricsToken: { type: 'http', scheme: 'bearer', description: 'the token that reads /metrics and nothing else (metrics_token in config.json)' },
        session: {
          type: 'apiKey',
          in: 'cookie',
          name: 'certhub_session',
          description: 'set by POST /api/admin/login; named __Host-certhub_session when certhub is served over HTTPS',
        },
      },
      schemas: {
        Error: error,
        Domain: { type: 'object', required: Object.keys(domainProperties), properties: domainProperties },
        ListedDomain: {
          allOf: [
            domainRef,
            {
              type: 'object',
              required: ['deployment'],
              properties: { deployment: { ...deploymentSchema, description: 'the hosts that report on it (certhub-agent)' } },
            },
          ],
        },
        DomainDetail: {
          allOf: [
            { $ref: '#/components/schemas/ListedDomain' },
            { type: 'object', required: ['hosts'], properties: { hosts: { type: 'array', items: hostSchema } } },
          ],
        },
        Certificate: {
          type: 'object',
          required: ['cert_pem', 'chain_pem', 'expires_at'],
          properties: {
            cert_pem: string,
            chain_pem: string,
            key_pem: { type: 'string', description: 'the private key; absent for an own_key domain, whose key stays on its host' },
            expires_at: dateTime,
            csr_wanted: { type: 'boolean', description: "own_key domains only: certhub waits for the host's next CSR (POST /api/cert/{domain}/csr)" },
          },
        },
      },
    },
    paths: {
      '/': {
        get: {
          summary: 'the admin panel (the page asks for the admin key)',
          responses: { '200': { description: 'HTML', content: { 'text/html': { schema: string } } } },
        },
      },
      ...versionPath('certhub'),
      '/api/spec': { get: { summary: 'this document', responses: { '200': jsonResponse('OpenAPI 3.0', { type: 'object' }) } } },
      ...operationsPaths({
        metricsSecurity: [{ adminKey: [] }, { metricsToken: [] }],
        metricsErrors: {
          '401': errorResponse('missing or wrong admin key or metrics token'),
          '429': errorResponse('too many failed attempts from this address; see Retry-After'),
        },
      }),
      '/api/help': { get: { summary: 'the API as plain text', responses: { '200': { description: 'help', content: { 'text/plain': { schema: string } } } } } },
      '/api/cert/{domain}': {
        get: {
          summary: "a domain's certificate, chain and key",
          security: [{ domainToken: [] }],
          parameters: [{ name: 'domain', in: 'path', required: true, description: 'full name or label', schema: string }],
          responses: {
            '200': jsonResponse('the material', { $ref: '#/components/schemas/Certificate' }),
            ...badParameter,
            '401': errorResponse(
              'wrong token or unknown domain (the same answer for both); a token certhub retired (rotated away, of a removed domain, or a revoked host token, within 90 days) gets an `error` saying so, and is not counted as a failed attempt',
            ),
            '403': errorResponse("the domain is certhub's own tls.domain: its key is not given out for a token"),
            '409': errorResponse('the certificate is not issued yet'),
            '429': errorResponse('too many failed attempts from this address; see Retry-After'),
          },
        },
      },
      '/api/admin/login': {
        post: {
          summary: 'open a panel session',
          requestBody: jsonBody({ type: 'object', required: ['key'], properties: { key: string } }),
          responses: { '204': { description: 'logged in; the session cookie is set' }, ...bodyErrors, ...adminErrors },
        },
      },
      '/api/admin/session': {
        get: {
          summary: "whether the request's session cookie holds a live panel session (no 401 when not)",
          responses: {
            '200': {
              description: '`{"active": boolean, "demo": boolean}`: demo is true for a `--demo` certhub (self-signed certificates, nothing contacted)',
              content: {
                'application/json': {
                  schema: { type: 'object', required: ['active', 'demo'], properties: { active: { type: 'boolean' }, demo: { type: 'boolean' } } },
                },
              },
            },
          },
        },
      },
      '/api/admin/logout': { post: { summary: 'close the session', responses: { '204': { description: 'logged out' }, '403': crossOrigin } } },
      '/api/admin/domains': {
        get: {
          summary: 'every domain, with its deployment (the hosts that report on it)',
          security: admin,
          parameters: [
            {
              name: 'deployment',
              in: 'query',
              required: false,
              description: 'stale: only the domains with a stale host, or whose newest certificate is served nowhere',
              schema: { type: 'string', enum: ['stale'] },
            },
          ],
          responses: {
            '200': jsonResponse('the domains', {
              type: 'object',
              required: ['domains'],
              properties: { domains: { type: 'array', items: { $ref: '#/components/schemas/ListedDomain' } } },
            }),
            '400': errorResponse('deployment is not stale'),
            ...adminErrors,
          },
        },
        post: {
          summary: 'add a domain: its record is published and a certificate issued',
          security: admin,
          requestBody: jsonBody({
            type: 'object',
            required: ['name', 'target'],
            properties: {
              name: string,
              target: string,
              adopt: {
                type: 'boolean',
                description:
                  'let certhub manage (replace, and delete with the domain) the A/AAAA/CNAME records already at the name that it did not create; default false',
              },
              profile: profileProperty,
              names: namesProperty,
              wildcard_records: wildcardRecordsProperty,
              own_key: ownKeyInput,
            },
          }),
          responses: {
            '201': jsonResponse('the new domain (pending)', domainRef),
            ...bodyErrors,
            '400': errorResponse(
              'bad name, names or target (a name outside the base domain, the apex without allow_apex, more than 100 names, a label over 63 octets, a name over 253), a profile the CA does not list (the error names those it does), or a body that is not JSON of the schema',
            ),
            '409': errorResponse(
              "the domain exists, a name is another domain's already (the error names it), max_domains are managed already, the target closes a CNAME loop, or the name has A/AAAA/CNAME records certhub did not create (named in the error; see adopt)",
            ),
            ...adminErrors,
          },
        },
      },
      '/api/admin/domains/{name}': {
        parameters: [nameParameter],
        get: {
          summary: 'one domain, with its deployment and every host that reports on it',
          security: admin,
          responses: {
            '200': jsonResponse('the domain', { $ref: '#/components/schemas/DomainDetail' }),
            ...badParameter,
            '404': errorResponse('no such domain'),
            ...adminErrors,
          },
        },
        patch: {
          summary: "change a domain's target, its ACME profile, its names, or several of them",
          security: admin,
          requestBody: jsonBody({
            type: 'object',
            minProperties: 1,
            properties: {
              target: string,
              profile: profileProperty,
              names: {
                ...namesProperty,
                description: `${namesProperty.description}. The whole list: records are written for names added and removed for names dropped, and an issued domain orders a certificate for the new set at once`,
              },
              wildcard_records: wildcardRecordsProperty,
              own_key: ownKeyInput,
              adopt: {
                type: 'boolean',
                description:
                  "let certhub manage the A/AAAA/CNAME records at the name that it did not create (those an earlier certhub wrote without its mark, or someone else's), as on an add; default false",
              },
            },
          }),
          responses: {
            '200': jsonResponse('the domain', domainRef),
            ...bodyErrors,
            '400': errorResponse(
              'bad target or names, a profile the CA does not list (the error names those it does), a name that is not valid percent-encoding, or a body that is not JSON of the schema',
            ),
            '404': errorResponse('no such domain'),
            '409': errorResponse(
              "a name is another domain's already (the error names it), the target closes a CNAME loop between managed names, or the name has A/AAAA/CNAME records certhub did not create (named in the error; see adopt)",
            ),
            ...adminErrors,
          },
        },
        delete: {
          summary: 'remove a domain: record, material and token',
          security: admin,
          responses: { '204': { description: 'removed' }, ...badParameter, '404': errorResponse('no such domain'), ...adminErrors },
        },
      },
      '/api/admin/domains/{name}/rotate': {
        parameters: [nameParameter],
        post: {
          summary: 'a new token; the old one is refused from now on',
          security: admin,
          responses: {
            '200': jsonResponse('the domain with its new token', domainRef),
            ...badParameter,
            '404': errorResponse('no such domain'),
            ...adminErrors,
          },
        },
      },
      '/api/admin/domains/{name}/retry': {
        parameters: [nameParameter],
        post: {
          summary: 'a domain in error tries again now instead of at its backoff time',
          security: admin,
          responses: {
            '200': jsonResponse('the domain, pending again', domainRef),
            ...badParameter,
            '404': errorResponse('no such domain'),
            '409': errorResponse('the domain is not in error'),
            ...adminErrors,
          },
        },
      },
      '/api/admin/domains/{name}/renew': {
        parameters: [nameParameter],
        post: {
          summary: 'an issued domain is renewed now; the certificate served stays until the new one arrives',
          security: admin,
          responses: {
            '200': jsonResponse('the domain, its renewal due now', domainRef),
            ...badParameter,
            '404': errorResponse('no such domain'),
            '409': errorResponse('the domain is not issued'),
            ...adminErrors,
          },
        },
      },
      '/api/admin/domains/{name}/rekey': {
        parameters: [nameParameter],
        post: {
          summary: 'an issued domain is renewed now with a new private key (an order left open with a key made for it is dropped)',
          security: admin,
          responses: {
            '200': jsonResponse('the domain, its renewal due now', domainRef),
            ...badParameter,
            '404': errorResponse('no such domain'),
            '409': errorResponse('the domain is not issued'),
            ...adminErrors,
          },
        },
      },
      '/api/admin/domains/{name}/revoke': {
        parameters: [nameParameter],
        post: {
          summary: "the domain's certificate is revoked at the CA with an RFC 5280 reason, and a new one ordered at once",
          security: admin,
          requestBody: jsonBody({
            type: 'object',
            required: ['reason'],
            properties: { reason: { type: 'string', enum: [...revocationReasonNames], description: 'the RFC 5280 §5.3.1 reason, by name' } },
          }),
          responses: {
            '200': {
              description: "the domain, its renewal due now, and the CA's answer",
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    required: ['domain', 'ca_answer'],
                    properties: { domain: domainRef, ca_answer: { type: 'string', description: 'what the CA answered, in words' } },
                  },
                },
              },
            },
            ...bodyErrors,
            '400': errorResponse('a bad name, or a reason that is not one of the names (the error lists them)'),
            '404': errorResponse('no such domain'),
            '409': errorResponse('the domain is not issued'),
            '502': errorResponse("the CA refused the revocation; the error is the CA's"),
            ...adminErrors,
          },
        },
      },
      '/api/admin/domains/{name}/cert.crt': {
        parameters: [nameParameter],
        get: {
          summary: 'certificate and chain (PEM)',
          security: admin,
          responses: {
            '200': { description: 'PEM', content: pem },
            ...badParameter,
            '404': errorResponse('no such domain'),
            '409': errorResponse('not issued yet'),
            ...adminErrors,
          },
        },
      },
      '/api/admin/domains/{name}/key.key': {
        parameters: [nameParameter],
        get: {
          summary: 'private key (PEM)',
          security: admin,
          responses: {
            '200': { description: 'PEM', content: pem },
            ...badParameter,
            '404': errorResponse('no such domain'),
            '409': errorResponse('not issued yet'),
            ...adminErrors,
          },
        },
      },
      '/api/admin/server': {
        get: {
          summary: 'how certhub is served: `pin` (sha256: fingerprint of its self-signed certificate, else null) and `insecure_http` (plain HTTP off loopback)',
          security: admin,
          responses: {
            '200': jsonResponse('how it is served', {
              type: 'object',
              required: ['pin', 'insecure_http'],
              properties: { pin: { type: 'string', nullable: true }, insecure_http: { type: 'boolean' } },
            }),
            ...adminErrors,
          },
        },
      },
      '/api/admin/ca': {
        get: {
          summary:
            "the CA certhub orders from: `directory_url`, the `profiles` its directory lists (name: description; null when it lists none) and `default_profile` (acme.profile; null: the CA's default). All null in a demo",
          security: admin,
          responses: {
            '200': jsonResponse('the CA', {
              type: 'object',
              required: ['directory_url', 'profiles', 'default_profile'],
              properties: {
                directory_url: { type: 'string', nullable: true },
                profiles: { type: 'object', nullable: true, additionalProperties: string },
                default_profile: { type: 'string', nullable: true },
              },
            }),
            '502': errorResponse('the CA could not be reached, or its account could not be opened'),
            ...adminErrors,
          },
        },
      },
      '/api/admin/prefs': {
        get: {
          summary: "the panel's preferences (prefs.json)",
          security: admin,
          responses: { '200': jsonResponse('preferences', { type: 'object' }), ...adminErrors },
        },
        put: {
          summary: 'change preferences (the fields given)',
          security: admin,
          requestBody: jsonBody({ type: 'object' }),
          responses: {
            '200': jsonResponse('preferences', { type: 'object' }),
            ...bodyErrors,
            '400': errorResponse('a bad field, or a body that is not a JSON object'),
            ...adminErrors,
          },
        },
      },
      '/api/admin/logs': {
        get: {
          summary: 'the live server log: the recent backlog, then every record (Server-Sent Events, event "log")',
          security: admin,
          parameters: [
            { name: 'backlog', in: 'query', description: 'records to start with (default 500)', schema: { type: 'integer', minimum: 0, maximum: 1000 } },
          ],
          responses: {
            '200': { description: 'event stream', content: { 'text/event-stream': { schema: string } } },
            '400': errorResponse('backlog is not a whole number from 0 to 1000'),
            ...adminErrors,
          },
        },
      },
      '/api/admin/events': {
        get: {
          summary:
            'domain changes: a "snapshot" event (name, label, status, error and expires_at of every domain), then "domain" (one such summary) and "removed" events (Server-Sent Events); the full domain, token included, is GET /api/admin/domains/{name}',
          security: admin,
          responses: { '200': { description: 'event stream', content: { 'text/event-stream': { schema: string } } }, ...adminErrors },
        },
      },
      ...auditPaths({ security: admin, adminErrors, errorResponse, jsonResponse }),
      ...hostPaths({ admin, adminErrors, badParameter, bodyErrors, errorResponse, jsonResponse, nameParameter }),
      ...ownKeyPaths({ errorResponse, jsonResponse, bodyErrors, badParameter, domainRef }),
      ...p12Paths({ admin, adminErrors, badParameter, bodyErrors, errorResponse, jsonResponse, nameParameter }),
      ...hostTokenPaths({ admin, adminErrors, badParameter, bodyErrors, errorResponse, jsonResponse, nameParameter }),
    },
  };
}
