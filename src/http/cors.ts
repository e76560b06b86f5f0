import type { Headers } from './reply.js';

// Any origin may call the routes that read no credential (public reads, the speed test). Routes of a
// group with authentication never send these headers (see router.ts), so no other site's page can
// read an answer made with a user's token or cookie.
export const corsHeaders: Headers = { 'Access-Control-Allow-Origin': '*' };

/** The answer to a CORS preflight; `Access-Control-Allow-Origin` comes from the router's default headers. */
export function preflightHeaders(methods: readonly string[], requestedHeaders: string | undefined): Headers {
  return {
    'Access-Control-Allow-Methods': [...methods, 'OPTIONS'].join(', '),
    'Access-Control-Allow-Headers': requestedHeaders ?? 'Content-Type, Authorization',
    'Access-Control-Max-Age': '86400',
  };
}
