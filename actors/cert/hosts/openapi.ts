// The hosts' parts of certhub's /api/spec (../site/openapi.ts): the agents' report, the deployment a
// domain's listing carries, the hosts of its detail, and a host's removal. The properties are typed
// against the report and the views, so a field added there fails to compile here until it is described.
import type { Deployment, HostView } from './deployment.js';
import { maxReportBytes, reportedLineLength, reportedOutputLines, type HostReport } from './report.js';
import type { SpecParts } from '../openapi-parts.js';

const string = { type: 'string' } as const;
const dateTime = { type: 'string', format: 'date-time' } as const;
const sha256 = { type: 'string', pattern: '^[0-9a-f]{64}$', description: "SHA-256 of the certificate's DER, hex" } as const;
const agent = { type: 'string', enum: ['fetch', 'proxy'], description: 'certhub-agent fetch, or certhub-agent proxy' } as const;
const reload = {
  type: 'object',
  nullable: true,
  required: ['ok', 'exit_code', 'output'],
  description: 'how the last reload after new material went; null when the agent runs none',
  properties: {
    ok: { type: 'boolean' },
    exit_code: {
      type: 'integer',
      nullable: true,
      description: "the reload command's exit code; null for the proxy's own reload, or a command ended by a signal",
    },
    output: { type: 'array', maxItems: reportedOutputLines, items: { type: 'string', maxLength: reportedLineLength }, description: 'its last lines of output' },
  },
};

const reportProperties: Record<keyof HostReport, object> = {
  host_id: { type: 'string', pattern: '^[A-Za-z0-9_-]{16,64}$', description: "the agent's stable id, kept in its folder" },
  host_name: { type: 'string', maxLength: 253, description: "the system's host name, or --host-name; a host token's host name replaces it" },
  agent,
  agent_version: { type: 'string', maxLength: 64 },
  serving: {
    type: 'object',
    required: ['sha256', 'not_after'],
    description: 'the certificate the host now serves (proxy) or wrote (fetch)',
    properties: { sha256, not_after: dateTime },
  },
  reload,
  next_check_at: {
    type: 'string',
    format: 'date-time',
    nullable: true,
    description: 'when the agent checks again; null when it does not know (a single fetch)',
  },
  port: {
    type: 'integer',
    minimum: 1,
    maximum: 65_535,
    nullable: true,
    description: "the TCP port the host serves the certificate on (certhub-agent proxy's), where certhub's probes connect; absent or null: probes.port",
  },
  server: {
    type: 'string',
    maxLength: 2048,
    description: 'the URL of the certhub server the agent fetched the material from (of the several it may be given, the one that answered)',
  },
};
/** A report may leave these out. */
const optionalReportFields: readonly (keyof HostReport)[] = ['port', 'server'];

const deploymentProperties: Record<keyof Deployment, object> = {
  hosts: { type: 'integer', description: 'hosts that report on the domain' },
  stale: { type: 'integer', description: 'of them, those stale' },
  state: { type: 'string', enum: ['none', 'current', 'stale'], description: 'none: no host reports' },
  unserved: { type: 'boolean', description: 'the newest certificate is served by no host, hosts.unserved_after_seconds after its issuance' },
};

const hostProperties: Record<keyof HostView, object> = {
  id: string,
  name: string,
  address: { type: 'string', description: 'the address the last report came from' },
  agent,
  agent_version: string,
  sha256,
  not_after: dateTime,
  served_since: { ...dateTime, description: 'the first report naming this certificate' },
  reload,
  last_report_at: dateTime,
  next_check_at: { type: 'string', format: 'date-time', nullable: true },
  port: { type: 'integer', nullable: true, description: 'the port the host said it serves on; null when it said none' },
  server: { type: 'string', nullable: true, description: 'the certhub server the host last fetched from; null when it did not say' },
  probe: {
    type: 'object',
    nullable: true,
    required: ['at', 'address', 'sha256', 'not_after', 'error'],
    description: "what certhub's last probe of the host saw (a TLS handshake naming the domain); null before the first, and with probes off",
    properties: {
      at: dateTime,
      address: { type: 'string', description: 'where it connected, host:port' },
      sha256: { ...sha256, nullable: true, description: 'the certificate presented; null when the handshake failed' },
      not_after: { ...dateTime, nullable: true },
      error: { type: 'string', nullable: true, description: 'why the handshake failed; null when it completed' },
    },
  },
  host_token: {
    type: 'string',
    nullable: true,
    description: "the id of the host token its reports are made with (GET /api/admin/domains/{name}/host-tokens); null: the domain's token",
  },
  state: { type: 'string', enum: ['current', 'stale'] },
  problems: {
    type: 'array',
    items: { type: 'string', enum: ['old_certificate', 'reload_failed', 'silent'] },
    description: 'why stale: it serves an older certificate, its last reload failed, or no report came by its next check plus hosts.stale_margin_seconds',
  },
  silent_after: {
    type: 'string',
    format: 'date-time',
    nullable: true,
    description: 'when the host turns stale without a report; null when it stated no next check',
  },
};

export const deploymentSchema = { type: 'object', required: Object.keys(deploymentProperties), properties: deploymentProperties };
export const hostSchema = { type: 'object', required: Object.keys(hostProperties), properties: hostProperties };

/** The paths' operations; the security schemes and response makers are the spec's own. */
export function hostPaths(parts: SpecParts): Record<string, object> {
  const { errorResponse, jsonResponse } = parts;
  return {
    '/api/cert/{domain}/report': {
      post: {
        summary:
          "certhub-agent reports which certificate this host serves, how its reload went and when it checks again; made with a host token, the report carries that token's host name",
        security: [{ domainToken: [] }],
        parameters: [{ name: 'domain', in: 'path', required: true, description: 'full name or label', schema: string }],
        requestBody: {
          required: true,
          description: `at most ${maxReportBytes} bytes`,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: Object.keys(reportProperties).filter((field) => !optionalReportFields.includes(field as keyof HostReport)),
                properties: reportProperties,
              },
            },
          },
        },
        responses: {
          '200': jsonResponse('kept; the domain with its deployment now', {
            type: 'object',
            required: ['domain', 'deployment'],
            properties: { domain: string, deployment: deploymentSchema },
          }),
          ...parts.bodyErrors,
          ...parts.badParameter,
          '401': errorResponse('wrong token or unknown domain (the same answer for both)'),
          '403': errorResponse("made with a host token, the report's host_id is a host that reports with another host token"),
          '409': errorResponse('the domain keeps the most hosts it may, none of them silent: remove one'),
          '429': errorResponse('too many failed attempts from this address; see Retry-After'),
        },
      },
    },
    '/api/admin/domains/{name}/hosts/{id}': {
      parameters: [parts.nameParameter, { name: 'id', in: 'path', required: true, description: "the host's id", schema: string }],
      delete: {
        summary: 'forget a host that reports on the domain (one taken out of service); its next report, if any, adds it again',
        security: parts.admin,
        responses: { '204': { description: 'removed' }, ...parts.badParameter, '404': errorResponse('no such domain or host'), ...parts.adminErrors },
      },
    },
  };
}
