// An HTTP API's reference page from its OpenAPI document (the one its /api/spec serves): each route
// and method with its authentication, parameters, request body and responses, then the shapes of
// the document's named schemas.
import { code, generatedNote, page, prose, slug as anchor, table } from './markdown.js';

export interface ApiPage {
  file: string;
  title: string;
  sources: readonly string[];
  /** The OpenAPI document (3.0 or 3.1). */
  document: object;
}

/** The parts of an OpenAPI document the page reads. */
interface Node {
  $ref?: string;
  [key: string]: unknown;
}

const methods = ['get', 'put', 'post', 'patch', 'delete', 'head', 'options'] as const;

export function apiPage(api: ApiPage): string {
  const document = api.document as Node;
  const resolve = (node: unknown): Node => {
    let current = node as Node;
    for (let depth = 0; typeof current.$ref === 'string' && depth < 8; depth++) {
      current = current.$ref
        .replace(/^#\//, '')
        .split('/')
        .reduce<Node>((parent, key) => (parent[key] ?? {}) as Node, document);
    }
    return current;
  };
  const info = resolve(document.info);
  const schemes = (resolve(document.components).securitySchemes ?? {}) as Record<string, Node>;
  const paths = (document.paths ?? {}) as Record<string, Node>;
  const operations: string[] = [];
  const index: string[][] = [];
  for (const [path, item] of Object.entries(paths)) {
    for (const method of methods) {
      const operation = item[method] as Node | undefined;
      if (operation === undefined) continue;
      const heading = `${method.toUpperCase()} ${path}`;
      index.push([`[${code(heading)}](#${anchor(heading)})`, text(operation.summary)]);
      operations.push(operationSection(heading, operation, [...list(item.parameters), ...list(operation.parameters)].map(resolve), resolve, document.security));
    }
  }
  const schemas = Object.entries((resolve(document.components).schemas ?? {}) as Record<string, Node>);
  return page([
    `# ${api.title}`,
    generatedNote(api.sources),
    `OpenAPI ${text(document.openapi)}; a running server serves this document at \`/api/spec\`.`,
    prose(text(info.description)),
    Object.keys(schemes).length === 0
      ? undefined
      : page([
          '## Authentication',
          table(
            ['Scheme', 'How it is sent', 'Meaning'],
            Object.entries(schemes).map(([name, scheme]) => [code(name), schemeText(scheme), text(scheme.description)]),
          ),
        ]).trimEnd(),
    page(['## Routes', table(['Route', 'What it does'], index)]).trimEnd(),
    ...operations,
    schemas.length === 0 ? undefined : page(['## Schemas', ...schemas.map(([name, schema]) => schemaSection(name, resolve(schema), resolve))]).trimEnd(),
  ]);
}

function operationSection(heading: string, operation: Node, parameters: Node[], resolve: (node: unknown) => Node, globalSecurity: unknown): string {
  const security = (operation.security ?? globalSecurity) as Record<string, unknown>[] | undefined;
  const auth =
    security === undefined || security.length === 0
      ? 'none'
      : security.map((requirement) => Object.keys(requirement).map(code).join(' and ') || 'none').join(' or ');
  const body = operation.requestBody === undefined ? undefined : resolve(operation.requestBody);
  const responses = Object.entries((operation.responses ?? {}) as Record<string, unknown>).map(([status, response]) => {
    const answer = resolve(response);
    const content = Object.entries((answer.content ?? {}) as Record<string, Node>);
    return [code(status), content.map(([type, media]) => `${code(type)}${shapeText(media.schema, resolve)}`).join(', '), text(answer.description)];
  });
  return page([
    `### ${heading}`,
    prose([text(operation.summary), text(operation.description)].filter((line) => line !== '').join('\n\n')),
    `Authentication: ${auth}.`,
    parameters.length === 0
      ? undefined
      : table(
          ['Parameter', 'In', 'Required', 'Type', 'Meaning'],
          parameters.map((parameter) => [
            code(text(parameter.name)),
            text(parameter.in),
            parameter.required === true ? 'yes' : 'no',
            typeOf(resolve(parameter.schema ?? {})),
            text(parameter.description),
          ]),
        ),
    body === undefined ? undefined : bodyText(body, resolve),
    responses.length === 0 ? undefined : table(['Status', 'Body', 'Meaning'], responses),
  ]).trimEnd();
}

function bodyText(body: Node, resolve: (node: unknown) => Node): string {
  const content = Object.entries((body.content ?? {}) as Record<string, Node>);
  const lines = [
    `Request body${body.required === true ? '' : ' (optional)'}: ${content.map(([type, media]) => `${code(type)}${shapeText(media.schema, resolve)}`).join(', ')}.`,
  ];
  for (const [, media] of content) {
    const schema = resolve(media.schema ?? {});
    const rows = propertyRows(schema, resolve);
    if (rows.length > 0) lines.push(table(['Field', 'Type', 'Required', 'Meaning'], rows));
  }
  return lines.join('\n\n');
}

function schemaSection(name: string, schema: Node, resolve: (node: unknown) => Node): string {
  const rows = propertyRows(schema, resolve);
  return page([
    `### ${name}`,
    prose(text(schema.description)),
    rows.length === 0 ? `Type: ${typeOf(schema)}.` : table(['Field', 'Type', 'Required', 'Meaning'], rows),
  ]).trimEnd();
}

function propertyRows(schema: Node, resolve: (node: unknown) => Node): string[][] {
  const required = list(schema.required) as string[];
  return Object.entries((schema.properties ?? {}) as Record<string, Node>).map(([field, property]) => [
    code(field),
    typeOf(property, resolve),
    required.includes(field) ? 'yes' : 'no',
    text(resolve(property).description),
  ]);
}

/** ` (Domain)` after a body's media type when its schema is a named one. */
function shapeText(schema: unknown, resolve: (node: unknown) => Node): string {
  if (schema === undefined) return '';
  const ref = (schema as Node).$ref;
  if (typeof ref === 'string') return ` ([${ref.split('/').pop() ?? ''}](#${anchor(ref.split('/').pop() ?? '')}))`;
  const resolved = resolve(schema);
  return resolved.type === 'array' && typeof (resolved.items as Node | undefined)?.$ref === 'string'
    ? ` (array of ${shapeText(resolved.items, resolve).slice(2, -1)})`
    : '';
}

function typeOf(schema: Node, resolve?: (node: unknown) => Node): string {
  if (typeof schema.$ref === 'string') {
    const name = schema.$ref.split('/').pop() ?? '';
    return `[${name}](#${anchor(name)})`;
  }
  if (Array.isArray(schema.enum)) return schema.enum.map((value) => code(JSON.stringify(value))).join(', ') + (schema.nullable === true ? ', null' : '');
  const type = Array.isArray(schema.type) ? schema.type.join(' or ') : text(schema.type) || 'any';
  const items = schema.items === undefined ? '' : ` of ${typeOf(schema.items as Node, resolve)}`;
  const format = typeof schema.format === 'string' ? ` (${schema.format})` : '';
  return `${type}${items}${format}${schema.nullable === true ? ' or null' : ''}`;
}

function schemeText(scheme: Node): string {
  if (scheme.type === 'http') return `HTTP \`Authorization: ${text(scheme.scheme).replace(/^bearer$/, 'Bearer')} …\``;
  if (scheme.type === 'apiKey') return `${text(scheme.in)} ${code(text(scheme.name))}`;
  return text(scheme.type);
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : '';
}
