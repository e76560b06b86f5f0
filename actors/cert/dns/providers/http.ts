// One request to a provider's HTTP API with Node's fetch (undici): a deadline, a bound on the answer,
// and a failure to connect reported as the provider being unreachable, naming it.
import { OutpostError } from '../../../../src/errors.js';
import { readBoundedText } from '../../../../src/http/bounded-response.js';
import type { ProviderKind } from './provider.js';
import { certErrors } from '../../error-codes.js';

/** A zone listing of 10,000 records is a few MB; anything far larger is not a DNS API. */
const maxResponseBytes = 16 * 1024 * 1024;
/** How much of a provider's answer an error message quotes. */
const excerptLimit = 300;

export interface ProviderResponse {
  status: number;
  headers: Headers;
  body: string;
}

export interface ProviderRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  headers: Record<string, string>;
  /** Sent as JSON with its Content-Type; without it no Content-Type is sent (Cloudflare refuses a DELETE that has one and no body). */
  json?: unknown;
}

export async function providerFetch(provider: ProviderKind, url: string, request: ProviderRequest, timeoutMs: number): Promise<ProviderResponse> {
  const headers: Record<string, string> = { ...request.headers, Accept: 'application/json' };
  if (request.json !== undefined) headers['Content-Type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(url, {
      method: request.method,
      headers,
      body: request.json === undefined ? null : JSON.stringify(request.json),
      signal: AbortSignal.timeout(timeoutMs),
      redirect: 'error',
    });
  } catch (error) {
    throw new OutpostError(
      certErrors.ERR_DNS_PROVIDER,
      `${provider}: cannot reach ${new URL(url).origin} (${failureCause(error, timeoutMs)}); is the provider up?`,
    );
  }
  return {
    status: response.status,
    headers: response.headers,
    body: await readBoundedText(
      response,
      maxResponseBytes,
      () => new OutpostError(certErrors.ERR_DNS_PROVIDER, `${provider}: the answer is larger than ${maxResponseBytes} bytes`),
    ),
  };
}

function failureCause(error: unknown, timeoutMs: number): string {
  if (error instanceof DOMException && error.name === 'TimeoutError') return `no answer within ${timeoutMs} ms`;
  const cause = error instanceof Error ? (error.cause as { code?: unknown; message?: unknown } | undefined) : undefined;
  if (typeof cause?.code === 'string') return cause.code;
  if (typeof cause?.message === 'string') return cause.message;
  return error instanceof Error ? error.message : String(error);
}

/** A provider's answer as one line, cut to a readable length, for error messages. */
export function excerpt(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length > excerptLimit ? `${oneLine.slice(0, excerptLimit)}…` : oneLine;
}
