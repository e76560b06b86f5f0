// Reads a served OpenAPI document (3.0 or 3.1) into what the fuzzer needs: the operations to build
// requests for, and a check that an answer is one the document promises (a documented status, a
// body that validates against its schema), with the router's own fallbacks: 404 with a JSON error
// for an unknown path, 405 for a known path and another method, never a 5xx the operation does not list.
import { z } from 'zod';

export type JsonSchema = Record<string, unknown>;

interface MediaType {
  schema?: JsonSchema;
}
interface ResponseDoc {
  content?: Record<string, MediaType>;
}
interface ParameterDoc {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  schema?: JsonSchema;
}
interface OperationDoc {
  parameters?: ParameterDoc[];
  requestBody?: { content?: Record<string, MediaType> };
  responses: Record<string, ResponseDoc | { $ref: string }>;
  security?: object[];
}
export interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, unknown>>;
  components?: Record<string, Record<string, unknown>>;
}

export const documentedMethods = ['get', 'put', 'post', 'delete', 'patch'] as const;

export interface Operation {
  template: string;
  method: Uppercase<(typeof documentedMethods)[number]>;
  pathParameters: string[];
  queryParameters: ParameterDoc[];
  /** The JSON body schema, when the operation reads one. */
  jsonBody: JsonSchema | undefined;
  /** Status (as written in the document) -> the response. */
  responses: Record<string, ResponseDoc>;
}

export interface Answer {
  method: string;
  /** The request target as sent, query included. */
  target: string;
  status: number;
  contentType: string | undefined;
  /** undefined when the body was not read (an event stream, a HEAD). */
  body: Buffer | undefined;
}

/** Follows `$ref: '#/components/...'` (the only form these documents use). */
export function resolve<T>(document: OpenApiDocument, value: T | { $ref: string }): T {
  let current: unknown = value;
  for (let hops = 0; hops < 16 && isRecord(current) && typeof current.$ref === 'string'; hops++) {
    const [, ...segments] = current.$ref.split('/');
    current = segments.reduce<unknown>((node, segment) => (isRecord(node) ? node[segment] : undefined), document);
    if (current === undefined) throw new Error(`unresolved $ref in the document`);
  }
  return current as T;
}

/** `schema` with every $ref replaced by what it points at, for zod's converter (no cycles in these documents). */
function inline(document: OpenApiDocument, schema: unknown, depth = 0): unknown {
  if (depth > 32) throw new Error('schema nests too deep (a $ref cycle?)');
  if (Array.isArray(schema)) return schema.map((item) => inline(document, item, depth + 1));
  if (!isRecord(schema)) return schema;
  const target = resolve(document, schema);
  return Object.fromEntries(Object.entries(target).map(([key, value]) => [key, inline(document, value, depth + 1)]));
}

export function operationsOf(document: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [template, item] of Object.entries(document.paths)) {
    const shared = (item.parameters as ParameterDoc[] | undefined) ?? [];
    for (const method of documentedMethods) {
      const operation = item[method] as OperationDoc | undefined;
      if (operation === undefined) continue;
      const parameters = [...shared, ...(operation.parameters ?? [])].map((parameter) => resolve(document, parameter));
      const bodySchema = operation.requestBody?.content?.['application/json']?.schema;
      operations.push({
        template,
        method: method.toUpperCase() as Operation['method'],
        pathParameters: parameters.filter((parameter) => parameter.in === 'path').map((parameter) => parameter.name),
        queryParameters: parameters.filter((parameter) => parameter.in === 'query'),
        jsonBody: bodySchema === undefined ? undefined : (inline(document, bodySchema) as JsonSchema),
        responses: Object.fromEntries(Object.entries(operation.responses).map(([status, response]) => [status, resolve(document, response)])),
      });
    }
  }
  return operations;
}

const errorBody = z.object({ error: z.string().min(1) });

/** Checks answers against one document; the zod schemas made from it are kept. */
export class AnswerCheck {
  private readonly operations: Operation[];
  private readonly matchers: { template: string; pattern: RegExp }[];
  private readonly validators = new Map<string, z.ZodType>();

  constructor(
    private readonly document: OpenApiDocument,
    /** Whether the site answers CORS preflight (OPTIONS) on its open paths with 204. */
    private readonly cors: boolean,
  ) {
    this.operations = operationsOf(document);
    this.matchers = Object.keys(document.paths).map((template) => ({ template, pattern: templatePattern(template) }));
  }

  /** Why `answer` breaks the document, or undefined when it keeps it. */
  problem(answer: Answer): string | undefined {
    const path = answer.target.split('?')[0] ?? '';
    const template = this.matchers.find((matcher) => matcher.pattern.test(path))?.template;
    if (answer.status >= 400 && answer.status < 500) {
      const problem = this.errorBodyProblem(answer);
      if (problem !== undefined) return problem;
    }
    if (template === undefined) return answer.status === 404 ? undefined : `an unknown path answered ${answer.status}, not 404`;
    // HEAD is GET without the body where a route answers it; one that must not (taking a pool value) answers 405.
    if (answer.method === 'HEAD' && answer.status === 405) return undefined;
    const lookup = answer.method === 'HEAD' ? 'GET' : answer.method;
    const operation = this.operations.find((candidate) => candidate.template === template && candidate.method === lookup);
    if (operation === undefined) {
      if (answer.status === 405) return undefined;
      if (answer.method === 'OPTIONS' && this.cors && answer.status === 204) return undefined;
      return `${answer.method} on ${template} (not in the document) answered ${answer.status}, not 405`;
    }
    const badQuery = answer.status < 300 ? this.queryOutsideSchema(operation, answer.target) : undefined;
    if (badQuery !== undefined) return `${operation.method} ${template} answered ${answer.status} to ${badQuery}: what is invalid gets a 4xx`;
    const response = operation.responses[String(answer.status)] ?? operation.responses.default;
    if (response === undefined)
      return `${operation.method} ${template} answered ${answer.status}, which the document does not list (it lists ${Object.keys(operation.responses).join(', ')})`;
    return this.bodyProblem(answer, `${operation.method} ${template}`, String(answer.status), response);
  }

  /** The first documented query parameter whose value (the first given, as the server reads it) breaks its schema. */
  private queryOutsideSchema(operation: Operation, target: string): string | undefined {
    const query = new URLSearchParams(target.includes('?') ? target.slice(target.indexOf('?') + 1) : '');
    for (const parameter of operation.queryParameters) {
      const raw = query.get(parameter.name);
      if (raw === null || parameter.schema === undefined) continue;
      const numeric = parameter.schema.type === 'integer' || parameter.schema.type === 'number';
      const value = numeric && /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw;
      if (!this.validator(`query ${operation.template} ${parameter.name}`, parameter.schema).safeParse(value).success)
        return `${parameter.name}=${JSON.stringify(raw)}`;
    }
    return undefined;
  }

  private errorBodyProblem(answer: Answer): string | undefined {
    if (answer.body === undefined || answer.method === 'HEAD') return undefined;
    if (!isJson(answer.contentType)) return `a ${answer.status} came as ${answer.contentType ?? 'no content type'}, not a JSON {"error"}`;
    const parsed = errorBody.safeParse(parseJson(answer.body));
    return parsed.success ? undefined : `a ${answer.status} body is not {"error": "..."}: ${answer.body.toString('utf8').slice(0, 200)}`;
  }

  private bodyProblem(answer: Answer, operation: string, status: string, response: ResponseDoc): string | undefined {
    if (answer.body === undefined || answer.method === 'HEAD' || response.content === undefined) return undefined;
    const mediaType = Object.keys(response.content).find((declared) => baseType(declared) === baseType(answer.contentType ?? ''));
    if (mediaType === undefined)
      return `${operation} ${status} came as ${answer.contentType ?? 'no content type'}, the document says ${Object.keys(response.content).join(' or ')}`;
    const schema = response.content[mediaType]?.schema;
    if (schema === undefined) return undefined;
    const value = isJson(mediaType) ? parseJson(answer.body) : answer.body.toString(schema.format === 'binary' ? 'latin1' : 'utf8');
    const result = this.validator(`${operation} ${status} ${mediaType}`, schema).safeParse(value);
    return result.success ? undefined : `${operation} ${status} body does not match its schema: ${result.error.message.slice(0, 400)}`;
  }

  private validator(key: string, schema: JsonSchema): z.ZodType {
    let validator = this.validators.get(key);
    if (validator === undefined) {
      const target = this.document.openapi.startsWith('3.0') ? 'openapi-3.0' : 'draft-2020-12';
      validator = z.fromJSONSchema(inline(this.document, schema) as JsonSchema, { defaultTarget: target });
      this.validators.set(key, validator);
    }
    return validator;
  }
}

/** `/api/admin/domains/{name}` as a pattern over the raw request path: a parameter is one non-empty segment. */
function templatePattern(template: string): RegExp {
  const escaped = template.split(/\{[^}]+\}/).map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${escaped.join('[^/]+')}$`);
}

function baseType(contentType: string): string {
  return (contentType.split(';')[0] ?? '').trim().toLowerCase();
}

function isJson(contentType: string | undefined): boolean {
  return contentType !== undefined && baseType(contentType) === 'application/json';
}

/** The parsed body, or a marker no schema accepts. */
function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return Symbol('not JSON');
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
