// JSON request bodies: the media type is checked before a byte is read (415), the bytes are parsed
// (400 for malformed JSON) and the value is validated by the route's zod schema (400 naming the
// field and the rule, in the words config errors use: `target must be a string`).
import type { z } from 'zod';
import { formatIssues } from '../config/format.js';
import { OutpostError } from '../errors.js';

const bodyWords = { whole: 'the request body', key: 'field' };

/**
 * Refuses a body that is not `application/json` (415). Parameters other than a UTF-8 charset are
 * refused too: JSON exchanged between systems is UTF-8 (RFC 8259 §8.1).
 */
export function assertJsonContentType(contentType: string | undefined): void {
  const [mediaType = '', ...parameters] = (contentType ?? '').split(';').map((part) => part.trim().toLowerCase());
  const utf8 = parameters.every((parameter) => /^charset="?utf-8"?$/.test(parameter));
  if (mediaType !== 'application/json' || !utf8) {
    throw new OutpostError(
      'ERR_UNSUPPORTED_MEDIA_TYPE',
      `the request body must be application/json (UTF-8), not ${contentType === undefined ? 'untyped' : contentType}`,
    );
  }
}

/** The body's value after `schema`, or a 400 that names every field in error. */
export function parseJsonBody<Schema extends z.ZodType>(bytes: Buffer, schema: Schema): z.output<Schema> {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new OutpostError('ERR_BAD_REQUEST', 'the request body is not valid JSON');
  }
  const result = schema.safeParse(value);
  if (!result.success) throw new OutpostError('ERR_BAD_REQUEST', formatIssues(schema, result.error.issues, [], bodyWords).join('; '));
  return result.data;
}
