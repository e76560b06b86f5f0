import type { Headers } from './reply.js';

// The APIs outpost serves are public reads or token-authenticated; none relies on cookies, so any
// origin may call them.
export const corsHeaders: Headers = { 'Access-Control-Allow-Origin': '*' };

/** The answer to a CORS preflight; `Access-Control-Allow-Origin` comes from the router's default headers. */
export function preflightHeaders(methods: readonly string[], requestedHeaders: string | undefined): Headers {
  return {
    'Access-Control-Allow-Methods': [...methods, 'OPTIONS'].join(', '),
    'Access-Control-Allow-Headers': requestedHeaders ?? 'Content-Type, Authorization',
    'Access-Control-Max-Age': '86400',
  };
}
