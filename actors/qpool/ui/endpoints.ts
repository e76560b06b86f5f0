// Every endpoint the reference lists, with the curl line that shows it off. The same list as
// /api/help and /api/spec (actors/qpool/site/help.ts, openapi.ts): a path added
// there belongs here too.

export interface Endpoint {
  path: string;
  /** What it answers, one line. */
  summary: string;
  /** Taking a value consumes it; the reference marks those so nobody drains the pool by accident. */
  takesValue: boolean;
  /** curl's options before the URL, and what follows it. */
  curl: { options: string; after?: string };
}

export const endpoints: readonly Endpoint[] = [
  {
    path: '/api/random',
    summary: 'One value as JSON: value (256 lowercase hex characters), timestamp (ISO 8601 UTC) and source.',
    takesValue: true,
    curl: { options: '-s' },
  },
  {
    path: '/api/random/hex',
    summary: 'One value as 256 lowercase hex characters and a newline.',
    takesValue: true,
    curl: { options: '-sf' },
  },
  {
    path: '/api/random/base64',
    summary: 'One value as base64 of its 128 bytes and a newline; the example decodes it to a file.',
    takesValue: true,
    curl: { options: '-sf', after: '| base64 -d > value.bin' },
  },
  {
    path: '/api/random/binary',
    summary: 'One value as exactly 128 raw bytes: no encoding, no newline.',
    takesValue: true,
    curl: { options: '-sf', after: '-o value.bin' },
  },
  {
    path: '/api/status',
    summary: 'Pool figures as JSON: available, capacity, oldest, newest, served_total, last_ingest. Takes nothing.',
    takesValue: false,
    curl: { options: '-s' },
  },
  {
    path: '/api/version',
    summary: 'Product and running version: {"product":"qpool","version":"…"}.',
    takesValue: false,
    curl: { options: '-s' },
  },
  {
    path: '/api/spec',
    summary: 'OpenAPI 3.1 description of this API as JSON.',
    takesValue: false,
    curl: { options: '-s', after: '-o qpool-openapi.json' },
  },
  {
    path: '/api/help',
    summary: 'Plain-text help for a terminal.',
    takesValue: false,
    curl: { options: '-s' },
  },
  {
    path: '/',
    summary: 'This page. The example only asks for the headers: a quick check that the server answers.',
    takesValue: false,
    curl: { options: '-sI' },
  },
];

export function curlCommand(endpoint: Endpoint, origin: string): string {
  return ['curl', endpoint.curl.options, `${origin}${endpoint.path}`, endpoint.curl.after].filter((part) => part !== undefined).join(' ');
}
